import Synchronization

/// The life of a piece whose work is a `run()` that lasts until it is asked to stop (the
/// tracker queue, the event journal's writer): it runs once, a stop may be asked before or
/// while it runs, and whoever stops it can wait for its end. The daemon's service group runs
/// such pieces; `drain`-style calls use `stopAndWait(running:)`, which also covers a piece that
/// never ran.
package final class RunOnce: Sendable {
    private struct State {
        var started = false
        var ended = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let requests: AsyncStream<Void>
    private let request: AsyncStream<Void>.Continuation

    package init() {
        (requests, request) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// True the first time only: the caller runs the work; a second `run` returns at once.
    package func begin() -> Bool {
        state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
    }

    /// Asks the run to stop; returns at once.
    package func requestStop() {
        request.yield()
    }

    /// Returns once a stop is asked (or the task is cancelled).
    package func stopRequested() async {
        for await _ in requests { return }
    }

    /// Marks the run ended; whoever waits for it goes on.
    package func end() {
        let waiters = state.withLock { state in
            state.ended = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Asks the run to stop and waits for its end; `run` is the piece's own, called here in
    /// case it never ran (it then stops at once, after what a stop does).
    package func stopAndWait(running run: () async -> Void) async {
        requestStop()
        await run()
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                if !state.ended { state.waiters.append(waiter) }
                return state.ended
            }
            if ended { waiter.resume() }
        }
    }
}
