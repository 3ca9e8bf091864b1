import Foundation
import SecureSignals
import SharedTypes
import Synchronization

/// Answers `{"request_id", "count"}` after `delay_ms` (default 0); `bytes` pads the signal to
/// that size. The count shows the tests when a cached plaintext was used. `scope` (`device`,
/// `publisher`, `app`; default `device`) is its `SignalScope`.
public struct EchoAdapter: SignalAdapter {
    public static let name = "test-echo"
    public static let adapterVersion = SemanticVersion(2, 3, 4)
    public let sdkVersion = SemanticVersion(9, 8, 7)
    public let scope: SignalScope
    private let delay: Duration
    private let size: Int?
    private let calls = Counter()
    private let clock: any Clock<Duration>

    @Settings
    public struct Options: Decodable, Sendable, Equatable {
        @WireName("delay_ms") var delayMilliseconds = 0
        var bytes: Int?
        var scope = "device"
    }

    public init(options: Options, context: AdapterContext) async throws {
        guard let scope = SignalScope(rawValue: options.scope) else {
            throw SignalError(.adapterInitFailed, "no scope '\(options.scope)'")
        }
        self.scope = scope
        delay = .milliseconds(options.delayMilliseconds)
        size = options.bytes
        clock = context.clock
    }

    public func collectSignals(for request: SignalRequest) async throws -> Signal {
        if delay > .zero { try await clock.sleep(for: delay) }
        let count = calls.next()
        if let size { return .plaintext([UInt8](repeating: UInt8(ascii: "x"), count: size)) }
        return .plaintext(Array("{\"request_id\":\"\(request.requestID)\",\"count\":\(count)}".utf8))
    }
}

/// Never answers and ignores cancellation: the worst an SDK can do.
public struct HangAdapter: SignalAdapter {
    public static let name = "test-hang"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public let sdkVersion = SemanticVersion(1, 0, 0)
    public init(options: NoOptions, context: AdapterContext) async throws {}

    public func collectSignals(for request: SignalRequest) async throws -> Signal {
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        return .plaintext([])
    }
}

/// Fails its init with `sdk_unavailable` and the message of option `message`.
public struct FailingInitAdapter: SignalAdapter {
    public static let name = "test-fail-init"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public let sdkVersion = SemanticVersion(1, 0, 0)

    @Settings
    public struct Options: Decodable, Sendable, Equatable {
        var message = "the test SDK is not installed"
    }

    public init(options: Options, context: AdapterContext) async throws {
        throw SignalError(.sdkUnavailable, options.message)
    }

    public func collectSignals(for request: SignalRequest) async throws -> Signal { .plaintext([]) }
}

/// Takes `delay_ms` on the daemon's clock to initialize, then answers `slow-init`.
public struct SlowInitAdapter: SignalAdapter {
    public static let name = "test-slow-init"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public let sdkVersion = SemanticVersion(1, 0, 0)

    @Settings
    public struct Options: Decodable, Sendable, Equatable {
        @WireName("delay_ms") var delayMilliseconds = 1000
    }

    public init(options: Options, context: AdapterContext) async throws {
        try await context.clock.sleep(for: .milliseconds(options.delayMilliseconds))
    }

    public func collectSignals(for request: SignalRequest) async throws -> Signal {
        .plaintext(Array("slow-init".utf8))
    }
}

/// Returns a signal it sealed itself, to be passed through untouched.
public struct SelfSealingAdapter: SignalAdapter {
    public static let name = "test-self-sealed"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public let sdkVersion = SemanticVersion(1, 0, 0)
    public init(options: NoOptions, context: AdapterContext) async throws {}

    public func collectSignals(for request: SignalRequest) async throws -> Signal { .sealed("sealed-by-the-adapter") }
}

/// Throws an error that is not a `SignalError` on every collection.
public struct ThrowingAdapter: SignalAdapter {
    public static let name = "test-throw"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public let sdkVersion = SemanticVersion(1, 0, 0)
    public init(options: NoOptions, context: AdapterContext) async throws {}

    struct Broken: Error, CustomStringConvertible { var description: String { "the test SDK broke" } }
    public func collectSignals(for request: SignalRequest) async throws -> Signal { throw Broken() }
}

/// Fails every collection with `collection_failed` until it is reset, then answers `reset`:
/// an SDK that a reset brings back.
public final class FailsUntilResetAdapter: SignalAdapter, ResettableSignalAdapter {
    public static let name = "test-fails-until-reset"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public let sdkVersion = SemanticVersion(1, 0, 0)
    private let wasReset = Mutex(false)
    public init(options: NoOptions, context: AdapterContext) async throws {}

    public func collectSignals(for request: SignalRequest) async throws -> Signal {
        guard wasReset.withLock({ $0 }) else { throw SignalError(.collectionFailed, "the test SDK is broken") }
        return .plaintext(Array("reset".utf8))
    }

    public func reset() async throws { wasReset.withLock { $0 = true } }
}

final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}

/// Every test adapter, for a registry.
public let testAdapters: [any SignalAdapter.Type] = [
    EchoAdapter.self, HangAdapter.self, FailingInitAdapter.self, SlowInitAdapter.self, SelfSealingAdapter.self,
    ThrowingAdapter.self, FailsUntilResetAdapter.self,
]
