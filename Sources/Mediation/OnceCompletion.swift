import Synchronization

/// Turns a callback-style SDK's completion into one answer: the first call counts, every later
/// one is ignored and counted (the seeds' atomic once-only completion handler).
///
///     let ad = try await OnceCompletion<NetworkAd, AdLoadError>.run { completion in
///         sdk.load(unit) { ad, error in completion(ad.map(Result.success) ?? .failure(...)) }
///     }
public final class OnceCompletion<Value: Sendable, Failure: Error>: Sendable {
    private let state: Mutex<(continuation: CheckedContinuation<Value, any Error>?, extra: Int)>

    private init(_ continuation: CheckedContinuation<Value, any Error>) {
        state = Mutex((continuation, 0))
    }

    /// Completes with `result` if nothing has yet; returns whether this call counted.
    @discardableResult
    public func complete(_ result: Result<Value, Failure>) -> Bool {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            if state.continuation == nil { state.extra += 1 }
            return state.continuation
        }
        guard let continuation else { return false }
        continuation.resume(with: result.mapError { $0 as any Error })
        return true
    }

    /// Completions after the first, ignored.
    public var ignoredCompletions: Int { state.withLock { $0.extra } }

    /// Starts `body` with a completion and waits for its first answer.
    public static func run(_ body: (OnceCompletion) -> Void) async throws(Failure) -> Value {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                body(OnceCompletion(continuation))
            }
        } catch let error as Failure {
            throw error
        } catch {
            preconditionFailure("OnceCompletion resumes only with its own failure type")
        }
    }
}
