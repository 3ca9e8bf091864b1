import Consent
import Foundation
import Logging
import SharedTypes
import SignalCrypto
import TestAdapters
import TestSupport
import Testing

@testable import SecureSignals

/// The adapter host's cache, kept per scope key (`SignalScope`) and privacy state, on a manual
/// clock: a cached signal goes to no app under another app's consent, nor to another app or
/// publisher where the adapter is per app or per publisher, and the cache stays within its bound.
struct ScopedCacheTests {
    let key: X25519PrivateKey
    let opener: EnvelopeOpener
    let recipient: Recipient
    let state: URL
    let clock = ManualClock()

    init() throws {
        key = try X25519PrivateKey()
        let config = KeyConfig(keyID: 3, publicKey: key.publicKey, aeads: [.aes128GCM])
        opener = try EnvelopeOpener(privateKey: key, keyConfig: config)
        recipient = Recipient(name: "bidder", sealer: try EnvelopeSealer(keyConfig: config))
        state = FileManager.default.temporaryDirectory.appendingPathComponent("scoped-cache-\(UUID().uuidString)")
    }

    static let consenting = PrivacyState(limitAdTracking: false)

    /// A collector of one echo adapter of `scope`, caching for a minute, on the manual clock.
    func collector(scope: SignalScope) async throws -> SignalCollector<ManualClock> {
        let collector = try SignalCollector(
            configuration: CollectorConfiguration(
                adapters: [
                    AdapterConfiguration(
                        name: "test-echo", recipients: ["bidder"], cacheTTL: .seconds(60),
                        options: try EchoAdapter.decodeOptions(["scope": .string(scope.rawValue)]))
                ],
                recipients: ["bidder": recipient], stateDirectory: state),
            registry: AdapterRegistry(testAdapters), clock: clock, logger: Logger(label: "test"))
        await collector.initializeAll()
        await collector.setPrivacy(PrivacyPolicies(standing: try ConsentPolicy(Self.consenting, at: 0)))
        return collector
    }

    /// The plaintext the one signal of `app`'s collection carries, and whether it was cached.
    func collect(_ collector: SignalCollector<ManualClock>, _ app: AppIdentity?) async throws -> (String, Bool) {
        let result = await collector.collect(requestID: "r", app: app)
        let signal = try #require(result.signals.first, "\(result.errors)")
        let opened = try opener.open(signal.envelope)
        let payload = try WireFormat.decoder().decode(SignalPayload.self, from: Data(opened.payload.bytes))
        let raw = String(decoding: try #require(Data(base64Encoded: payload.signal)), as: UTF8.self)
        // The echo's answer without its request id: `"count":N`, which counts its collections.
        return (String(raw.drop { $0 != "," }), signal.cached)
    }

    @Test func twoAppsUnderDifferentPrivacyStatesEachGetTheirOwnCachedSignal() async throws {
        let collector = try await collector(scope: .device)
        let news = AppIdentity.signalsApp("tv.example.news")
        let games = AppIdentity.signalsApp("tv.example.games")
        // The device adapter's signal is shared, but games stands under a privacy state of its own.
        await collector.setPrivacy(
            PrivacyPolicies(
                standing: try ConsentPolicy(Self.consenting, at: 0),
                apps: [games.id: try ConsentPolicy(PrivacyState(limitAdTracking: false, usPrivacy: "1YNN"), at: 0)]))
        let newsFirst = try await collect(collector, news)
        let gamesFirst = try await collect(collector, games)
        #expect(!newsFirst.1 && !gamesFirst.1, "neither is served the other's")
        #expect(newsFirst.0 != gamesFirst.0)
        clock.advance(by: .seconds(10))
        #expect(try await collect(collector, news) == (newsFirst.0, true))
        #expect(try await collect(collector, games) == (gamesFirst.0, true))
        // An app of no state of its own stands under the device's: it shares news's entry.
        #expect(try await collect(collector, AppIdentity.signalsApp("tv.example.weather")) == (newsFirst.0, true))
    }

    @Test func aPerAppSignalIsNotServedToAnotherAppUnderTheSamePrivacyState() async throws {
        let collector = try await collector(scope: .app)
        let news = AppIdentity.signalsApp("tv.example.news", publisher: "pub-1")
        let sports = AppIdentity.signalsApp("tv.example.sports", publisher: "pub-1")
        let newsFirst = try await collect(collector, news)
        let sportsFirst = try await collect(collector, sports)
        #expect(!newsFirst.1 && !sportsFirst.1, "one publisher's apps, but the adapter is per app")
        #expect(newsFirst.0 != sportsFirst.0)
        #expect(try await collect(collector, news) == (newsFirst.0, true))
        #expect(try await collect(collector, sports) == (sportsFirst.0, true))
        // A request of no app (the core alone) has an entry of its own too.
        #expect(try await collect(collector, nil).1 == false)
    }

    @Test func aPerPublisherSignalIsSharedByThePublishersAppsOnly() async throws {
        let collector = try await collector(scope: .publisher)
        let news = AppIdentity.signalsApp("tv.example.news", publisher: "pub-1")
        let sports = AppIdentity.signalsApp("tv.example.sports", publisher: "pub-1")
        let other = AppIdentity.signalsApp("tv.other.quiz", publisher: "pub-2")
        // An app that names no publisher is its own: even one whose id is another's publisher id.
        let alone = AppIdentity.signalsApp("pub-1")
        let first = try await collect(collector, news)
        #expect(!first.1)
        #expect(try await collect(collector, sports) == (first.0, true))
        #expect(try await collect(collector, other).1 == false)
        #expect(try await collect(collector, alone).1 == false)
        #expect(try await collect(collector, alone).1 == true)
    }

    @Test func aDeviceSignalIsSharedByEveryAppUnderTheSamePrivacyState() async throws {
        let collector = try await collector(scope: .device)
        let first = try await collect(collector, AppIdentity.signalsApp("tv.example.news", publisher: "pub-1"))
        #expect(!first.1)
        #expect(
            try await collect(collector, AppIdentity.signalsApp("tv.other.quiz", publisher: "pub-2")) == (first.0, true)
        )
        #expect(try await collect(collector, AppIdentity.signalsApp("uid:1000")) == (first.0, true))
        #expect(try await collect(collector, nil) == (first.0, true))
    }

    /// A host of one echo adapter of `scope`, caching for a minute, on the manual clock.
    func host(scope: SignalScope, ttl: Duration = .seconds(60)) async throws -> AdapterHost<ManualClock> {
        let configuration = AdapterConfiguration(
            name: "test-echo", recipients: [], cacheTTL: ttl,
            options: try EchoAdapter.decodeOptions(["scope": .string(scope.rawValue)]))
        let host = AdapterHost(
            configuration: configuration, factory: try AdapterRegistry([EchoAdapter.self]).factory(for: configuration),
            clock: clock, logger: Logger(label: "test"))
        await host.initialize(
            context: AdapterContext(name: "test-echo", stateDirectory: state, logger: Logger(label: "t")))
        return host
    }

    /// Whether `request` was answered from the cache.
    func cached(_ host: AdapterHost<ManualClock>, _ request: SignalRequest) async -> Bool? {
        guard case .signal(_, let cached, _) = await host.collect(request, timeout: .seconds(1)) else { return nil }
        return cached
    }

    @Test func theCacheKeepsAtMostItsBoundTheLeastRecentlyUsedGoingFirst() async throws {
        let host = try await host(scope: .app)
        let capacity = AdapterHost<ManualClock>.cacheCapacity
        func request(_ index: Int) -> SignalRequest {
            SignalRequest(
                requestID: "r\(index)", privacy: Self.consenting, app: AppIdentity.signalsApp("tv.app\(index)"))
        }
        for index in 0..<capacity {
            #expect(await cached(host, request(index)) == false)
        }
        #expect(await host.cachedSignals == capacity)
        // App 0 is used again: app 1 is now the least recently used, and goes for app 64.
        #expect(await cached(host, request(0)) == true)
        #expect(await cached(host, request(capacity)) == false)
        #expect(await host.cachedSignals == capacity)
        #expect(await cached(host, request(0)) == true)
        #expect(await cached(host, request(capacity)) == true)
        #expect(await cached(host, request(1)) == false, "evicted")
        #expect(await host.cachedSignals == capacity)

        // Entries under privacy states no request has any more do not pile up either.
        for index in 0..<(3 * capacity) {
            let state = PrivacyState(limitAdTracking: false, usPrivacy: "1Y\(index)")
            _ = await cached(
                host, SignalRequest(requestID: "p\(index)", privacy: state, app: AppIdentity.signalsApp("tv.app0")))
        }
        #expect(await host.cachedSignals == capacity)
    }

    @Test func expiredEntriesMakeRoomBeforeLiveOnes() async throws {
        let host = try await host(scope: .app, ttl: .seconds(10))
        let capacity = AdapterHost<ManualClock>.cacheCapacity
        func request(_ index: Int) -> SignalRequest {
            SignalRequest(
                requestID: "r\(index)", privacy: Self.consenting, app: AppIdentity.signalsApp("tv.app\(index)"))
        }
        for index in 0..<(capacity - 1) { _ = await cached(host, request(index)) }
        clock.advance(by: .seconds(10))
        // A fresh one, then a full cache: the expired ones go, the fresh one stays.
        _ = await cached(host, request(capacity - 1))
        _ = await cached(host, request(capacity))
        #expect(await host.cachedSignals == 2)
        #expect(await cached(host, request(capacity - 1)) == true)
    }

    @Test func eachKeyIsRefreshedAheadOfItsExpiryOnItsOwn() async throws {
        let host = try await host(scope: .app, ttl: .seconds(2))
        let news = SignalRequest(
            requestID: "n", privacy: Self.consenting, app: AppIdentity.signalsApp("tv.example.news"))
        let games = SignalRequest(
            requestID: "g", privacy: Self.consenting, app: AppIdentity.signalsApp("tv.example.games"))
        func plaintext(_ request: SignalRequest) async -> [UInt8]? {
            guard case .signal(.plaintext(let bytes), _, _) = await host.collect(request, timeout: .seconds(1)) else {
                return nil
            }
            return bytes
        }
        let newsFirst = await plaintext(news)
        let gamesFirst = await plaintext(games)
        clock.advance(by: .seconds(1))  // half the TTL: each key's next request starts its refresh
        #expect(await plaintext(news) == newsFirst)
        #expect(await plaintext(games) == gamesFirst)
        try await waitUntil {
            let (newsNow, gamesNow) = (await plaintext(news), await plaintext(games))
            return newsNow != newsFirst && gamesNow != gamesFirst
        }
        #expect(await host.cachedSignals == 2)
        #expect(await cached(host, news) == true)
        #expect(await cached(host, games) == true)
    }

    @Test func aNewCacheTTLDropsEveryEntry() async throws {
        let host = try await host(scope: .app)
        let news = SignalRequest(
            requestID: "n", privacy: Self.consenting, app: AppIdentity.signalsApp("tv.example.news"))
        let games = SignalRequest(
            requestID: "g", privacy: Self.consenting, app: AppIdentity.signalsApp("tv.example.games"))
        _ = await cached(host, news)
        _ = await cached(host, games)
        #expect(await host.cachedSignals == 2)
        await host.update(
            AdapterConfiguration(
                name: "test-echo", recipients: [], cacheTTL: .seconds(30),
                options: try EchoAdapter.decodeOptions(["scope": "app"])))
        #expect(await host.cachedSignals == 0)
        #expect(await cached(host, news) == false)
    }
}
