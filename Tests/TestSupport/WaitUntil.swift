/// Polls `condition` until it holds, for up to `timeout` of real time: for tests that wait for
/// something to happen (a background task to land), never for time to pass.
public func waitUntil(timeout: Duration = .seconds(5), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(await condition()) {
        guard ContinuousClock.now < deadline else { throw WaitFailure(timeout: timeout) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// What `waitUntil` throws when the condition never held.
public struct WaitFailure: Error, CustomStringConvertible {
    public var timeout: Duration
    public var description: String { "the condition did not hold within \(timeout)" }
}

/// Polls `probe` until it returns a value, for up to `timeout`.
public func eventually<T>(timeout: Duration = .seconds(15), _ probe: () async throws -> T?) async throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if let value = try await probe() { return value }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw DaemonFailure("not so after \(timeout)")
}

/// A test's own failure, with what it saw.
public struct DaemonFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
