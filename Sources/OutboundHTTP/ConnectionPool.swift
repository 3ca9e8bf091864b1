import DequeModule
import NIOCore
import Synchronization

/// An `OutboundClient`'s connections to each origin, under one lock: at most
/// `maximumPerOrigin` open (connecting, in an exchange or kept idle). A request takes a kept
/// one (the newest), or room for a new one, or waits, oldest first, until an exchange that
/// ended hands it its connection or one that closed leaves it room, or until its deadline: a
/// burst to one bidder neither floods it nor spends the daemon's descriptors. A kept
/// connection closes when left unused for `idleTimeout` or when its server closes it.
final class ConnectionPool: Sendable {
    /// What a request is given.
    enum Grant: Sendable {
        /// An open connection, kept from an earlier exchange.
        case kept(any Channel)
        /// Room for a new connection, reserved for it until that connection closes, or until
        /// `closed(nil, ...)` says it was never made.
        case room
    }

    private struct Idle {
        var channel: any Channel
        var expiry: Scheduled<Void>
    }

    private struct Waiter {
        let id: UInt64
        /// Wants a new connection rather than a kept one (a GET asked again).
        let wantsNew: Bool
        let continuation: CheckedContinuation<Grant, any Error>
        var timer: Scheduled<Void>?
    }

    private struct Connections {
        var open = 0
        var idle: [Idle] = []
        var waiters = Deque<Waiter>()
    }

    private struct State {
        var origins: [Destination.Origin: Connections] = [:]
        /// Closing connections whose room a new connection took over: their closing frees none.
        var takenOver = Set<ObjectIdentifier>()
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    let maximumPerOrigin: Int
    private let idleTimeout: TimeAmount

    init(maximumPerOrigin: Int, idleTimeout: TimeAmount) {
        self.maximumPerOrigin = max(1, maximumPerOrigin)
        self.idleTimeout = idleTimeout
    }

    /// A kept connection to `origin` (unless `fresh`), else room for a new one, else its turn
    /// before `deadline` (timed on `loop`). A `fresh` request at the limit takes the room of a
    /// kept connection, which it closes. Throws `deadlineExceeded` or `cancelled`.
    func acquire(_ origin: Destination.Origin, fresh: Bool, before deadline: NIODeadline, on loop: any EventLoop)
        async throws(OutboundError) -> Grant
    {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                    enqueue(origin, id: id, fresh: fresh, deadline: deadline, loop: loop, continuation: continuation)
                }
            } onCancel: {
                leave(origin, id: id, throwing: .cancelled)
            }
        } catch let error as OutboundError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// An exchange on `channel` ended and left it fit for another: it goes to the oldest
    /// waiter, or is kept (while fewer than the maximum are), or is closed.
    func finished(_ channel: any Channel, for origin: Destination.Origin) {
        enum Fate {
            case handed(Waiter, Grant)
            case kept, closed
        }
        let fate = state.withLock { state -> Fate in
            // Closed meanwhile, its `closed` has run or is to come: it frees its room.
            guard channel.isActive else { return .closed }
            if let waiter = state.origins[origin]?.waiters.popFirst() {
                guard waiter.wantsNew else { return .handed(waiter, .kept(channel)) }
                state.takenOver.insert(ObjectIdentifier(channel))
                return .handed(waiter, .room)
            }
            guard let idle = state.origins[origin]?.idle, idle.count < maximumPerOrigin else {
                return .closed
            }
            // Timed once kept, under the lock, so that it can only find the connection kept or taken.
            let expiry = channel.eventLoop.scheduleTask(in: idleTimeout) { [weak self] in
                // Not if it was taken meanwhile: that exchange has it now.
                if self?.removeIdle(channel, for: origin) == true { channel.close(promise: nil) }
            }
            state.origins[origin]?.idle.append(Idle(channel: channel, expiry: expiry))
            return .kept
        }
        switch fate {
        case .kept:
            return
        case .handed(let waiter, let grant):
            if case .room = grant { channel.close(promise: nil) }
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: grant)
        case .closed:
            channel.close(promise: nil)
        }
    }

    /// A connection to `origin` closed (`channel`), or was never made (nil): its room goes to
    /// the oldest waiter, unless a new connection took it over.
    func closed(_ channel: (any Channel)?, for origin: Destination.Origin) {
        let (waiter, expiry) = state.withLock { state -> (Waiter?, Scheduled<Void>?) in
            var expiry: Scheduled<Void>?
            if let channel {
                if state.takenOver.remove(ObjectIdentifier(channel)) != nil { return (nil, nil) }
                if let index = state.origins[origin]?.idle.firstIndex(where: { $0.channel === channel }) {
                    expiry = state.origins[origin]?.idle.remove(at: index).expiry
                }
            }
            if let waiter = state.origins[origin]?.waiters.popFirst() { return (waiter, expiry) }  // the room passes
            state.origins[origin]?.open -= 1
            if state.origins[origin]?.open == 0 { state.origins[origin] = nil }
            return (nil, expiry)
        }
        expiry?.cancel()
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: .room)
    }

    /// How many connections to `origin` are open now; how many of them are kept idle; how
    /// many requests wait for one.
    func count(_ origin: Destination.Origin) -> (open: Int, idle: Int, waiting: Int) {
        state.withLock { state in
            let connections = state.origins[origin]
            return (connections?.open ?? 0, connections?.idle.count ?? 0, connections?.waiters.count ?? 0)
        }
    }

    /// Grants at once what can be granted, or queues the request with a timer for its deadline.
    private func enqueue(
        _ origin: Destination.Origin, id: UInt64, fresh: Bool, deadline: NIODeadline, loop: any EventLoop,
        continuation: CheckedContinuation<Grant, any Error>
    ) {
        enum Now {
            case granted(Grant, closing: Idle?, expiry: Scheduled<Void>? = nil)
            case queued
        }
        let now = state.withLock { state -> Now in
            // Taken out and put back, so that its arrays are changed in place, never copied.
            var connections = state.origins.removeValue(forKey: origin) ?? Connections()
            defer { state.origins[origin] = connections }
            if !fresh {
                while let idle = connections.idle.popLast() {
                    // No longer idle: its expiry is cancelled below. A closing one's `closed` frees its room.
                    if idle.channel.isActive { return .granted(.kept(idle.channel), closing: nil, expiry: idle.expiry) }
                    idle.expiry.cancel()
                }
            }
            if connections.open < maximumPerOrigin, connections.waiters.isEmpty {
                connections.open += 1
                return .granted(.room, closing: nil)
            }
            if fresh, let idle = connections.idle.popLast() {
                state.takenOver.insert(ObjectIdentifier(idle.channel))
                return .granted(.room, closing: idle)
            }
            connections.waiters.append(Waiter(id: id, wantsNew: fresh, continuation: continuation))
            return .queued
        }
        switch now {
        case .granted(let grant, let closing, let expiry):
            expiry?.cancel()
            closing?.expiry.cancel()
            closing?.channel.close(promise: nil)
            continuation.resume(returning: grant)
        case .queued:
            let timer = loop.scheduleTask(deadline: deadline) {
                self.leave(origin, id: id, throwing: .deadlineExceeded)
            }
            let waiting = state.withLock { state in
                guard let index = state.origins[origin]?.waiters.firstIndex(where: { $0.id == id }) else {
                    return false
                }
                state.origins[origin]?.waiters[index].timer = timer
                return true
            }
            if !waiting { timer.cancel() }
            // Cancelled before it was queued, its handler found nothing to end.
            if Task.isCancelled { leave(origin, id: id, throwing: .cancelled) }
        }
    }

    /// Ends waiter `id`'s wait with `error`, if it still waits.
    private func leave(_ origin: Destination.Origin, id: UInt64, throwing error: OutboundError) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.origins[origin]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.origins[origin]?.waiters.remove(at: index)
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(throwing: error)
    }

    /// Whether `channel` was kept (and is no longer).
    private func removeIdle(_ channel: any Channel, for origin: Destination.Origin) -> Bool {
        state.withLock { state in
            guard let index = state.origins[origin]?.idle.firstIndex(where: { $0.channel === channel }) else {
                return false
            }
            state.origins[origin]?.idle.remove(at: index)
            return true
        }
    }
}
