import NIOCore
import Synchronization

/// The connections an `OutboundClient` keeps open between exchanges, by origin: at most
/// `maximumPerOrigin` each, the newest taken first, each closed when left unused for
/// `idleTimeout` or when its server closes it.
final class IdleConnections: Sendable {
    private struct Idle: Sendable {
        var channel: any Channel
        var expiry: Scheduled<Void>
    }

    private let connections = Mutex<[Destination.Origin: [Idle]]>([:])
    private let maximumPerOrigin: Int
    private let idleTimeout: TimeAmount

    init(maximumPerOrigin: Int, idleTimeout: TimeAmount) {
        self.maximumPerOrigin = maximumPerOrigin
        self.idleTimeout = idleTimeout
    }

    /// An open connection to `origin`, no longer idle; nil when none is kept.
    func take(_ origin: Destination.Origin) -> (any Channel)? {
        while let idle = connections.withLock({ $0[origin]?.popLast() }) {
            idle.expiry.cancel()
            if idle.channel.isActive { return idle.channel }
        }
        return nil
    }

    /// Keeps `channel` for the next exchange with `origin`, or closes it when enough are kept;
    /// returns whether it was kept.
    @discardableResult
    func put(_ channel: any Channel, for origin: Destination.Origin) -> Bool {
        let expiry = channel.eventLoop.scheduleTask(in: idleTimeout) { [weak self] in
            // Not if it was taken meanwhile: that exchange has it now.
            if self?.remove(channel, for: origin) == true { channel.close(promise: nil) }
        }
        let kept = connections.withLock { connections in
            // One its server closed since it answered is not kept: nothing would take it.
            guard channel.isActive, connections[origin, default: []].count < maximumPerOrigin else { return false }
            connections[origin, default: []].append(Idle(channel: channel, expiry: expiry))
            return true
        }
        guard kept else {
            expiry.cancel()
            channel.close(promise: nil)
            return false
        }
        return true
    }

    /// Forgets `channel` when it closes, kept or not: called once, when it is made, so that a
    /// server closing a kept connection is seen at once rather than at the next take.
    func watch(_ channel: any Channel, for origin: Destination.Origin) {
        channel.closeFuture.whenComplete { [weak self] _ in self?.remove(channel, for: origin) }
    }

    /// How many connections to `origin` are kept now.
    func count(_ origin: Destination.Origin) -> Int {
        connections.withLock { $0[origin]?.count ?? 0 }
    }

    /// Whether `channel` was kept (and is no longer).
    @discardableResult
    private func remove(_ channel: any Channel, for origin: Destination.Origin) -> Bool {
        connections.withLock { connections in
            let before = connections[origin]?.count ?? 0
            connections[origin]?.removeAll { $0.channel === channel }
            let after = connections[origin]?.count ?? 0
            if after == 0 { connections[origin] = nil }
            return after < before
        }
    }
}
