import Synchronization

/// How a timed operation ended.
package enum TimedOutcome<Value: Sendable>: Sendable {
    case value(Value)
    case failure(any Error)
    case timedOut
}

/// Runs `operation` and answers within `timeout` on `clock` whatever it does: an operation that
/// ignores cancellation or never returns costs this caller only the timeout, and is cancelled
/// then. The answer is given exactly once, by whichever finishes first: the operation, the
/// timer, or the cancellation of the caller (answered as `.timedOut`).
///
/// `late` gets a value the operation returns after the answer was given, so that what the value
/// owes (a bidder's notice, an ad's loss) is settled rather than dropped with it.
package func withTimeout<Value: Sendable, C: Clock>(
    _ timeout: Duration, clock: C, late: (@Sendable (Value) -> Void)? = nil,
    operation: @escaping @Sendable () async throws -> Value
) async -> TimedOutcome<Value> where C.Duration == Duration {
    let race = Race<Value>()
    return await withTaskCancellationHandler {
        await race.run(timeout: timeout, clock: clock, late: late, operation: operation)
    } onCancel: {
        race.finish(.timedOut)
    }
}

/// `withTimeout` on the monotonic clock.
package func withTimeout<Value: Sendable>(
    _ timeout: Duration, late: (@Sendable (Value) -> Void)? = nil,
    operation: @escaping @Sendable () async throws -> Value
) async -> TimedOutcome<Value> {
    await withTimeout(timeout, clock: ContinuousClock(), late: late, operation: operation)
}

extension Race {
    fileprivate func run<C: Clock>(
        timeout: Duration, clock: C, late: (@Sendable (Value) -> Void)?,
        operation: @escaping @Sendable () async throws -> Value
    ) async -> TimedOutcome<Value> where C.Duration == Duration {
        let race = self
        // A child, cancelled (and awaited) as this returns, whoever gave the answer.
        async let _: Void = {
            try? await clock.sleep(for: timeout)
            race.finish(.timedOut)
        }()
        return await withCheckedContinuation { continuation in
            race.begin(continuation)
            // Not the caller's child, so that an operation deaf to cancellation costs it only
            // the timeout: the race's end cancels it, and it ends when the operation does.
            let work = Task {
                do {
                    let value = try await operation()
                    if !race.finish(.value(value)) { late?(value) }
                } catch {
                    race.finish(.failure(error))
                }
            }
            race.onFinish { work.cancel() }
        }
    }
}

/// The once-only completion of a `withTimeout` race.
final class Race<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<TimedOutcome<Value>, Never>?
        var finished = false
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Keeps the continuation, or resumes it at once when the race already finished (the
    /// caller was cancelled before it began).
    func begin(_ continuation: CheckedContinuation<TimedOutcome<Value>, Never>) {
        let finishedEarly = state.withLock { state -> Bool in
            if state.finished { return true }
            state.continuation = continuation
            return false
        }
        if finishedEarly { continuation.resume(returning: .timedOut) }
    }

    /// Runs `cleanup` once the race has finished (at once, when it already has).
    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.finished { return true }
            state.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    /// Completes the race with `outcome` unless it already completed; answers whether it did.
    @discardableResult
    func finish(_ outcome: TimedOutcome<Value>) -> Bool {
        let (continuation, cleanup) = state.withLock {
            state -> (CheckedContinuation<TimedOutcome<Value>, Never>?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            defer {
                state.continuation = nil
                state.cleanup = nil
            }
            return (state.continuation, state.cleanup)
        }
        guard let continuation else { return false }
        continuation.resume(returning: outcome)
        cleanup?()
        return true
    }
}
