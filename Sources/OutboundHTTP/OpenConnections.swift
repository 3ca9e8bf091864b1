import DequeModule
import NIOCore
import Synchronization

/// How many connections an `OutboundClient` has open to each origin (connecting, in an exchange
/// or kept idle): at most `maximumPerOrigin`. A request that finds them all open waits, oldest
/// first, until one is kept idle for it to take or one closes and leaves it room, or until its
/// deadline: a burst to one bidder neither floods it nor spends the daemon's descriptors.
final class OpenConnections: Sendable {
    /// What a waiting request was woken for.
    enum Turn: Sendable {
        /// A connection is reserved for it: it makes one.
        case reserved
        /// A connection was kept idle: it may take it, or wait again if another took it first.
        case idle
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Turn, any Error>
        var timer: Scheduled<Void>?
    }

    private struct State {
        var open: [Destination.Origin: Int] = [:]
        var waiters: [Destination.Origin: Deque<Waiter>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    let maximumPerOrigin: Int

    init(maximumPerOrigin: Int) {
        self.maximumPerOrigin = max(1, maximumPerOrigin)
    }

    /// How many connections to `origin` are open now.
    func count(_ origin: Destination.Origin) -> Int {
        state.withLock { $0.open[origin] ?? 0 }
    }

    /// How many requests wait for a connection to `origin` now.
    func waiting(_ origin: Destination.Origin) -> Int {
        state.withLock { $0.waiters[origin]?.count ?? 0 }
    }

    /// A connection to `origin` is reserved when fewer than the maximum are open; otherwise
    /// waits its turn before `deadline` on `loop`. Throws `deadlineExceeded` or `cancelled`.
    func reserve(_ origin: Destination.Origin, before deadline: NIODeadline, on loop: any EventLoop)
        async throws(OutboundError) -> Turn
    {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Turn, any Error>) in
                    let queued = state.withLock { state in
                        if state.open[origin, default: 0] < maximumPerOrigin, state.waiters[origin]?.isEmpty ?? true {
                            state.open[origin, default: 0] += 1
                            return false
                        }
                        state.waiters[origin, default: []].append(Waiter(id: id, continuation: continuation))
                        return true
                    }
                    guard queued else { return continuation.resume(returning: .reserved) }
                    let timer = loop.scheduleTask(deadline: deadline) {
                        self.leave(origin, id: id, throwing: OutboundError.deadlineExceeded)
                    }
                    let stillWaiting = state.withLock { state in
                        guard let index = state.waiters[origin]?.firstIndex(where: { $0.id == id }) else {
                            return false
                        }
                        state.waiters[origin]?[index].timer = timer
                        return true
                    }
                    if !stillWaiting { timer.cancel() }
                    // Cancelled before it was queued, its handler found nothing to end.
                    if Task.isCancelled { self.leave(origin, id: id, throwing: OutboundError.cancelled) }
                }
            } onCancel: {
                leave(origin, id: id, throwing: OutboundError.cancelled)
            }
        } catch let error as OutboundError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// A connection to `origin` closed, or was never made: its room goes to the oldest waiter.
    func release(_ origin: Destination.Origin) {
        let next = state.withLock { state -> Waiter? in
            if let waiter = state.waiters[origin]?.popFirst() {
                if state.waiters[origin]?.isEmpty == true { state.waiters[origin] = nil }
                return waiter  // the room passes to it: the count stays
            }
            state.open[origin, default: 1] -= 1
            if state.open[origin] == 0 { state.open[origin] = nil }
            return nil
        }
        next?.timer?.cancel()
        next?.continuation.resume(returning: .reserved)
    }

    /// A connection to `origin` was kept idle: the oldest waiter is woken to take it.
    func kept(_ origin: Destination.Origin) {
        let next = state.withLock { state -> Waiter? in
            let waiter = state.waiters[origin]?.popFirst()
            if state.waiters[origin]?.isEmpty == true { state.waiters[origin] = nil }
            return waiter
        }
        next?.timer?.cancel()
        next?.continuation.resume(returning: .idle)
    }

    /// Ends waiter `id`'s wait with `error`, if it still waits.
    private func leave(_ origin: Destination.Origin, id: UInt64, throwing error: OutboundError) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters[origin]?.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = state.waiters[origin]?.remove(at: index)
            if state.waiters[origin]?.isEmpty == true { state.waiters[origin] = nil }
            return waiter
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(throwing: error)
    }
}
