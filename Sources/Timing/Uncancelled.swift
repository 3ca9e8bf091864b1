/// Runs `operation` to its end even when the caller is cancelled, and returns its result: for
/// work that must not be cut short (a write the caller's answer promises, a program's last
/// output). The caller still waits for it; only the cancellation does not reach it.
package func uncancelled<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) async -> Value {
    // Not the caller's child, so that its cancellation does not reach the operation; awaited
    // here, so it never outlives the caller.
    await Task { await operation() }.value
}

/// `uncancelled` for an operation that throws: its error is the caller's.
package func uncancelled<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws
    -> Value
{
    let result: Result<Value, any Error> = await uncancelled {
        do {
            return .success(try await operation())
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
