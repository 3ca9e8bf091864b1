/// Polls `condition` until it holds, for up to `timeout` of real time: for tests that wait for
/// something to happen (a background task to land), never for time to pass. The bound is
/// generous (a suite run beside a build keeps tasks waiting for a core for seconds); it costs
/// nothing when the condition holds.
/// It looks again after 1 ms, then ever less often, up to every 20 ms: quick to see what lands at
/// once, and light on a busy machine's cores while it waits long (a thousand looks a second
/// from each waiting test starved the work they waited for).
public func waitUntil(timeout: Duration = .seconds(30), _ condition: () async -> Bool) async throws {
    let found = try await poll(every: .milliseconds(1), upTo: .milliseconds(20), for: timeout) {
        await condition() ? true : nil
    }
    guard found != nil else {
        throw WaitFailure(timeout: timeout)
    }
}

/// What `waitUntil` throws when the condition never held.
public struct WaitFailure: Error, CustomStringConvertible {
    public var timeout: Duration
    public var description: String { "the condition did not hold within \(timeout)" }
}

/// Polls `probe` until it returns a value, for up to `timeout` (as generous as `waitUntil`'s).
public func eventually<T>(timeout: Duration = .seconds(30), _ probe: () async throws -> T?) async throws -> T {
    guard let value = try await poll(every: .milliseconds(50), upTo: .milliseconds(50), for: timeout, probe) else {
        throw DaemonFailure("not so after \(timeout)")
    }
    return value
}

/// `probe`'s first value, asked after `first`, then after twice the last pause up to `longest`,
/// for up to `timeout`; nil when none came. The one place the tests wait on the real clock for
/// something to happen.
private func poll<T>(
    every first: Duration, upTo longest: Duration, for timeout: Duration, _ probe: () async throws -> T?
) async throws -> T? {
    let deadline = ContinuousClock.now + timeout
    var pause = first
    while true {
        if let value = try await probe() { return value }
        guard ContinuousClock.now < deadline else { return nil }
        try await Task.sleep(for: pause)
        pause = min(pause * 2, longest)
    }
}

/// A test's own failure, with what it saw.
public struct DaemonFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
