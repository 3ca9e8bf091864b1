import Consent
import Foundation
import Logging
import SecureSignals
import SharedTypes
import SignalCrypto
import Synchronization
import TestAdapters
import TestSupport
import Testing

/// The collector with real adapters, real keys and real envelopes, in-process.
struct CollectorTests {
    let key: X25519PrivateKey
    let opener: EnvelopeOpener
    let recipient: Recipient
    let state: URL

    init() throws {
        key = try X25519PrivateKey()
        let config = KeyConfig(keyID: 3, publicKey: key.publicKey, aeads: [.aes128GCM])
        opener = try EnvelopeOpener(privateKey: key, keyConfig: config)
        recipient = Recipient(name: "bidder", sealer: try EnvelopeSealer(keyConfig: config))
        state = FileManager.default.temporaryDirectory.appendingPathComponent("collector-\(UUID().uuidString)")
    }

    /// A collector of `adapters` on `clock`, initialized unless the test does that itself.
    func collector<C: Clock>(
        _ adapters: [AdapterConfiguration], requestTimeout: Duration = .milliseconds(500), clock: C,
        initialize: Bool = true
    ) async throws -> SignalCollector<C> where C.Duration == Duration {
        let collector = try SignalCollector(
            configuration: CollectorConfiguration(
                adapters: adapters, recipients: ["bidder": recipient], requestTimeout: requestTimeout,
                stateDirectory: state),
            registry: AdapterRegistry(testAdapters), clock: clock, logger: Logger(label: "test"))
        if initialize { await collector.initializeAll() }
        return collector
    }

    func collector(_ adapters: [AdapterConfiguration], requestTimeout: Duration = .milliseconds(500)) async throws
        -> SignalCollector<ContinuousClock>
    {
        try await collector(adapters, requestTimeout: requestTimeout, clock: ContinuousClock())
    }

    func payload(_ signal: SealedSignal) throws -> SignalPayload {
        let opened = try opener.open(signal.envelope)
        return try WireFormat.decoder().decode(SignalPayload.self, from: Data(opened.payload.bytes))
    }

    @Test func envelopesCarryTheRequestAndTheAdapter() async throws {
        let collector = try await collector([AdapterConfiguration(name: "test-echo", recipients: ["bidder"])])
        let result = await collector.collect(requestID: "req-1")
        #expect(result.errors.isEmpty)
        let signal = try #require(result.signals.first)
        #expect(signal.adapter == "test-echo" && signal.recipient == "bidder" && signal.keyID == 3)
        #expect(signal.adapterVersion.description == "2.3.4" && signal.sdkVersion.description == "9.8.7")
        let inside = try payload(signal)
        #expect(inside.v == 1 && inside.requestID == "req-1" && inside.adapter == "test-echo")
        #expect(inside.adapterVersion == signal.adapterVersion && inside.sdkVersion == signal.sdkVersion)
        let raw = String(decoding: try #require(Data(base64Encoded: inside.signal)), as: UTF8.self)
        #expect(raw.contains("\"request_id\":\"req-1\""))
    }

    /// On a manual clock: the answer comes once the hanging adapter's 80 ms have passed, not
    /// the request's 3 s.
    @Test func aHangingAdapterCostsOnlyItsOwnTimeout() async throws {
        let clock = ManualClock()
        let collector = try await collector(
            [
                AdapterConfiguration(name: "test-hang", recipients: ["bidder"], timeout: .milliseconds(80)),
                AdapterConfiguration(name: "test-echo", recipients: ["bidder"], timeout: .seconds(1)),
            ], requestTimeout: .seconds(3), clock: clock)
        let answered = Mutex<CollectionResult?>(nil)
        let collecting = Task {
            let result = await collector.collect(requestID: "r")
            answered.withLock { $0 = result }
        }
        try await waitUntil { clock.sleeping >= 1 }
        clock.advance(by: .milliseconds(79))
        #expect(answered.withLock { $0 } == nil, "not before the adapter's timeout")
        clock.advance(by: .milliseconds(1))
        try await waitUntil { answered.withLock { $0 } != nil }
        await collecting.value
        let result = try #require(answered.withLock { $0 })
        #expect(result.signals.map(\.adapter) == ["test-echo"])
        #expect(result.errors.map(\.code) == [.timeout])
        #expect(result.errors.first?.adapter == "test-hang")
    }

    /// On a manual clock: the request's 100 ms bound the adapter's 30 s.
    @Test func theRequestDeadlineBoundsEveryAdapter() async throws {
        let clock = ManualClock()
        let collector = try await collector(
            [AdapterConfiguration(name: "test-hang", recipients: ["bidder"], timeout: .seconds(30))], clock: clock)
        let collecting = Task { await collector.collect(requestID: "r", timeout: .milliseconds(100)) }
        try await waitUntil { clock.sleeping >= 1 }
        clock.advance(by: .milliseconds(100))
        let result = await collecting.value
        #expect(result.errors.map(\.code) == [.timeout])
    }

    @Test func anInitErrorIsAnsweredUnchangedOnEveryRequest() async throws {
        let collector = try await collector([
            AdapterConfiguration(
                name: "test-fail-init", recipients: ["bidder"],
                options: try FailingInitAdapter.decodeOptions(["message": "no SDK here"]))
        ])
        for request in ["a", "b", "c"] {
            let result = await collector.collect(requestID: request)
            #expect(
                result.errors == [
                    AdapterFailure(adapter: "test-fail-init", code: .sdkUnavailable, message: "no SDK here")
                ])
        }
        let status = try #require(await collector.statuses().first)
        #expect(status.state == .failed)
        #expect(status.description == "sdk_unavailable: no SDK here")
    }

    @Test func cachedPlaintextsComeBackInFreshEnvelopes() async throws {
        let collector = try await collector([
            AdapterConfiguration(name: "test-echo", recipients: ["bidder"], cacheTTL: .seconds(60))
        ])
        let first = try #require(await collector.collect(requestID: "one").signals.first)
        let second = try #require(await collector.collect(requestID: "two").signals.first)
        #expect(!first.cached && second.cached)
        #expect(first.envelope != second.envelope)
        #expect(try payload(first).signal == payload(second).signal)  // the same plaintext ...
        #expect(try payload(second).requestID == "two")  // ... bound to the new request

        // A new privacy state drops the cache.
        await collector.setPrivacy(
            PrivacyPolicies(standing: try ConsentPolicy(PrivacyState(limitAdTracking: true), at: 0)))
        let third = try #require(await collector.collect(requestID: "three").signals.first)
        #expect(!third.cached)
        #expect(try payload(third).signal != payload(first).signal)
    }

    @Test func aCacheIsRefreshedInTheBackgroundBeforeItExpires() async throws {
        let clock = ManualClock()
        let collector = try await collector(
            [AdapterConfiguration(name: "test-echo", recipients: ["bidder"], cacheTTL: .seconds(2))], clock: clock)
        let first = try #require(await collector.collect(requestID: "1").signals.first)
        clock.advance(by: .milliseconds(999))
        let early = try #require(await collector.collect(requestID: "2").signals.first)
        #expect(early.cached)
        clock.advance(by: .milliseconds(1))  // half the TTL: the next request triggers a refresh
        let second = try #require(await collector.collect(requestID: "3").signals.first)
        #expect(second.cached)
        #expect(try payload(second).signal == payload(first).signal, "the old plaintext until the refresh lands")
        // The refresh runs in the background; no time passes while the test waits for it.
        var third = second
        try await waitUntil {
            third = (await collector.collect(requestID: "4").signals.first) ?? third
            return (try? payload(third).signal != payload(first).signal) ?? false
        }
        #expect(third.cached, "the refreshed plaintext is served from the cache")
        clock.advance(by: .milliseconds(2000))
        let expired = try #require(await collector.collect(requestID: "5").signals.first)
        #expect(!expired.cached, "the refreshed entry is good for one TTL from its refresh")
    }

    @Test func signalsOverTheCapAreRefused() async throws {
        let collector = try await collector([
            AdapterConfiguration(
                name: "test-echo", recipients: ["bidder"], options: try EchoAdapter.decodeOptions(["bytes": 4097]))
        ])
        let result = await collector.collect(requestID: "r")
        #expect(result.signals.isEmpty)
        #expect(result.errors.map(\.code) == [.signalTooLarge])
    }

    @Test func everyFailureIsReportedForItsAdapterOnly() async throws {
        let collector = try await collector([
            AdapterConfiguration(name: "test-echo", recipients: []),
            AdapterConfiguration(name: "test-throw", recipients: ["bidder"]),
            AdapterConfiguration(name: "test-self-sealed", recipients: ["bidder"]),
        ])
        let result = await collector.collect(
            requestID: "r", adapters: ["test-echo", "test-throw", "test-self-sealed", "nope"])
        #expect(
            result.errors.map { "\($0.adapter):\($0.code.rawValue)" }
                == ["test-echo:no_recipient_key", "test-throw:collection_failed", "nope:unknown_adapter"],
            "in the order asked")
        #expect(result.errors.first { $0.adapter == "test-throw" }?.message == "the test SDK broke")
        let sealed = try #require(result.signals.first)
        #expect(sealed.envelope == "sealed-by-the-adapter" && sealed.recipient == nil)
    }

    @Test func aLateAdapterIsTimedOutThenServesOnceReady() async throws {
        let clock = ManualClock()
        let collector = try await collector(
            [
                AdapterConfiguration(
                    name: "test-slow-init", recipients: ["bidder"], initTimeout: .milliseconds(50),
                    options: try SlowInitAdapter.decodeOptions(["delay_ms": 300]))
            ], clock: clock, initialize: false)
        let initializing = Task { await collector.initializeAll() }
        try await waitUntil { clock.sleeping == 2 }  // the init timeout, and the adapter's own 300 ms
        clock.advance(by: .milliseconds(50))
        await initializing.value
        #expect(await collector.statuses().first?.state == .timedOut)
        #expect(await collector.collect(requestID: "early").errors.map(\.code) == [.sdkUnavailable])
        #expect(await collector.isSettled == false)
        clock.advance(by: .milliseconds(250))
        // Settling is an event: readiness awaits it rather than polling.
        await collector.settle()
        #expect(await collector.statuses().first?.state == .ready)
        #expect(await collector.statuses().first?.initLatencyMilliseconds == 300)
        #expect(await collector.collect(requestID: "late").signals.count == 1)
    }

    @Test func adaptersAreInitializedOnceAndConcurrently() async throws {
        let clock = ManualClock()
        let collector = try await collector(
            try (0..<8).map {
                AdapterConfiguration(
                    name: "slow-\($0)", type: "test-slow-init", recipients: ["bidder"],
                    options: try SlowInitAdapter.decodeOptions(["delay_ms": 600]))
            }, clock: clock, initialize: false)
        let initializing = Task { await collector.initializeAll() }
        // All eight wait out their 600 ms at once, each beside its init timeout: one after
        // another, only one would be waiting.
        try await waitUntil { clock.sleeping == 16 }
        clock.advance(by: .milliseconds(600))
        await initializing.value
        #expect(await collector.statuses().map(\.state) == Array(repeating: .ready, count: 8))
    }
}
