import Client
import Foundation
import SecureSignals
import SharedTypes
import SignalCrypto
import TestSupport
import Testing

@testable import Daemon

/// Recipients whose keys come from their `key_url`, in-process against real local HTTP(S)
/// servers: fetched, sealed with, refreshed at half their lifetime on the daemon's clock,
/// kept through bad answers and restarts, and given up past `max_stale_ms`.
struct RecipientKeyRouteTests {
    /// A bidder's keys as it publishes them: private halves kept, public set served.
    struct PublishedKeys {
        var privateKeys: [UInt8: X25519PrivateKey] = [:]
        var configs: [KeyConfig] = []

        init(_ ids: [UInt8]) throws {
            for id in ids {
                let key = try X25519PrivateKey()
                privateKeys[id] = key
                configs.append(KeyConfig(keyID: id, publicKey: key.publicKey, aeads: [.aes128GCM]))
            }
        }

        var body: [UInt8] { KeyConfig.encodeCollection(configs) }

        /// Opens what was sealed for any of these keys (or `others`').
        func opener(_ others: PublishedKeys...) throws -> EnvelopeOpener {
            let all = ([self] + others).flatMap { keys in
                keys.configs.filter { !$0.supportedSuites.isEmpty }.compactMap { config in
                    keys.privateKeys[config.keyID].map { ($0, config) }
                }
            }
            return try EnvelopeOpener(keys: all)
        }
    }

    static var echo: [String: Any] { ["name": "test-echo", "recipients": ["bidder", "demo"], "timeout_ms": 1000] }

    static func config(_ bidder: [String: Any], stateDirectory: String? = nil) -> [String: Any] {
        var config: [String: Any] = [
            "recipients": ["bidder": bidder, "demo": ["key_configs": [DemoRecipient.keyConfigPath]]],
            "adapters": [echo],
        ]
        config["state_directory"] = stateDirectory
        return config
    }

    static func serve(_ keys: PublishedKeys, on server: FakeAdServer, headers: [String: String] = [:]) {
        server.answer("/keys", .init(body: keys.body, contentType: "application/ohttp-keys", headers: headers))
    }

    /// The bidder's status once `condition` holds of it.
    static func bidder(_ client: DaemonClient, when condition: @escaping (RecipientStatus) -> Bool)
        async throws -> RecipientStatus
    {
        try await eventually {
            try await client.recipients().first { $0.name == "bidder" && condition($0) }
        }
    }

    /// The bidder's envelope in a new collection, and the collection's errors.
    static func collect(_ client: DaemonClient) async throws -> (SealedSignal?, [AdapterFailure]) {
        let result = try await client.collect(requestID: UUID().uuidString)
        return (result.signals.first { $0.recipient == "bidder" }, result.errors)
    }

    /// The bidder's next fetch as its status shows it, once the refresh has scheduled it past
    /// the set in force (`at`), and when that set was fetched; both wall-clock ms.
    static func nextFetch(_ client: DaemonClient) async throws -> (at: Int64, fetchedAt: Int64) {
        let status = try await bidder(client) { status in
            guard let next = try? milliseconds(status.nextFetchAt), let fetched = try? milliseconds(status.fetchedAt)
            else { return false }
            return next > fetched
        }
        return (try milliseconds(status.nextFetchAt), try milliseconds(status.fetchedAt))
    }

    static func milliseconds(_ time: String?) throws -> Int64 {
        let date = try Date(try #require(time), strategy: .iso8601)
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    @Test func theFirstFetchSealsWithTheFirstSupportedKeyAndTheEnvelopeOpens() async throws {
        let server = try await FakeAdServer()
        var published = try PublishedKeys([7, 5, 6])
        published.configs[0].algorithms = [.init(kdfID: 0x0003, aeadID: 0x0042)]  // a suite this daemon lacks
        let keys = published
        // Found through a redirect on the same server; a P-256 key first, which is left out.
        server.answer("/moved", .init(status: 301, headers: ["Location": "/keys"]))
        let p256: [UInt8] = [4, 0x00, 0x10] + [UInt8](repeating: 4, count: 65) + [0, 4, 0, 1, 0, 1]
        server.answer(
            "/keys",
            .init(
                body: [0, UInt8(p256.count)] + p256 + keys.body, contentType: "application/ohttp-keys",
                headers: ["Cache-Control": "public, max-age=3600"]))
        let daemon = try await InProcessDaemon(config: Self.config(["key_url": server.url("/moved")]))
        try await daemon.run { client in
            let status = try await Self.bidder(client) { $0.state == .fresh }
            #expect(status.source == .url && status.url == server.url("/moved") && status.keyIDs == [7, 5, 6])
            #expect(status.lastError == nil)
            let fetchedAt = try Self.milliseconds(status.fetchedAt)
            #expect(try Self.milliseconds(status.freshUntil) - fetchedAt == 3_600_000)
            #expect(try Self.milliseconds(status.staleUntil) - fetchedAt == 3_600_000 + 7 * 86_400_000)
            let (signal, errors) = try await Self.collect(client)
            #expect(errors.isEmpty)
            let envelope = try #require(signal)
            #expect(envelope.keyID == 5)
            let opened = try keys.opener().open(envelope.envelope)
            #expect(opened.header.keyID == 5)
            let demo = try #require(try await client.recipients().first { $0.name == "demo" })
            #expect(demo.source == .file && demo.state == .fresh && demo.keyIDs == [1] && demo.url == nil)
            let metrics = String(decoding: try await client.request(.GET, "/metrics").body, as: UTF8.self)
            #expect(
                metrics.contains(#"secure_signals_recipient_key_fetches_total{recipient="bidder",outcome="ok"} 1"#),
                "\(metrics)")
            #expect(metrics.contains(#"secure_signals_recipient_key_age_seconds{recipient="bidder"}"#))
            #expect(server.requests("/keys").first?.headers["accept"] == "application/ohttp-keys")
        }
    }

    @Test func aRotatedSetIsTakenAtHalfItsMaxAgeAndOldEnvelopesStillOpen() async throws {
        let server = try await FakeAdServer()
        let old = try PublishedKeys([1])
        let new = try PublishedKeys([2])
        Self.serve(old, on: server, headers: ["Cache-Control": "max-age=600"])
        let daemon = try await InProcessDaemon(config: Self.config(["key_url": server.url("/keys")]))
        try await daemon.run { client in
            _ = try await Self.bidder(client) { $0.state == .fresh }
            let before = try #require(try await Self.collect(client).0)
            #expect(before.keyID == 1)
            // The bidder publishes the new key first and keeps the old one opening.
            var rotated = new
            rotated.configs += old.configs
            Self.serve(rotated, on: server, headers: ["Cache-Control": "max-age=600"])
            // Fetched again between 0.4 and 0.6 of the lifetime (half, give or take a tenth).
            let next = try await Self.nextFetch(client)
            #expect((239_000...361_000).contains(next.at - next.fetchedAt), "next fetch \(next)")
            #expect(server.requests("/keys").count == 1)
            #expect(try await Self.collect(client).0?.keyID == 1)
            daemon.application.clock.advance(by: .seconds(361))
            let status = try await Self.bidder(client) { $0.keyIDs == [2, 1] }
            #expect(status.state == .fresh && server.requests("/keys").count == 2)
            let after = try #require(try await Self.collect(client).0)
            #expect(after.keyID == 2)
            let opener = try old.opener(new)
            #expect(try opener.open(before.envelope).header.keyID == 1)
            #expect(try opener.open(after.envelope).header.keyID == 2)
            let metrics = String(decoding: try await client.request(.GET, "/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"secure_signals_recipient_key_changes_total{recipient="bidder"} 1"#))
        }
    }

    @Test func maxAgeLessAgeOrTheDefaultSetsTheLifetime() async throws {
        let server = try await FakeAdServer()
        let keys = try PublishedKeys([3])
        Self.serve(keys, on: server, headers: ["Cache-Control": "max-age=1000", "Age": "400"])
        let daemon = try await InProcessDaemon(
            config: Self.config(["key_url": server.url("/keys"), "default_max_age_ms": 7_200_000]))
        try await daemon.run { client in
            let status = try await Self.bidder(client) { $0.state == .fresh }
            let fetchedAt = try Self.milliseconds(status.fetchedAt)
            #expect(try Self.milliseconds(status.freshUntil) - fetchedAt == 600_000)
            // Refreshed at 300 s, give or take 60: surely by 361 s.
            let next = try await Self.nextFetch(client)
            #expect((239_000...361_000).contains(next.at - next.fetchedAt), "next fetch \(next)")
            #expect(server.requests("/keys").count == 1)
            Self.serve(keys, on: server)  // no Cache-Control: the recipient's default
            daemon.application.clock.advance(by: .seconds(361))
            let refreshed = try await Self.bidder(client) { (try? Self.milliseconds($0.fetchedAt)) != fetchedAt }
            let lifetime = try Self.milliseconds(refreshed.freshUntil) - Self.milliseconds(refreshed.fetchedAt)
            #expect(lifetime == 7_200_000)
        }
    }

    @Test(arguments: [false, true])
    func aDeviceThatRestartsOfflineSealsAtOnceWithTheStoredSet(keepsURL: Bool) async throws {
        let state = try TemporaryDirectory()
        var server: FakeAdServer? = try await FakeAdServer()
        let keys = try PublishedKeys([4])
        let url = try #require(server?.url("/keys"))
        Self.serve(keys, on: try #require(server), headers: ["Cache-Control": "max-age=3600"])
        let first = try await InProcessDaemon(
            config: Self.config(["key_url": url], stateDirectory: state.path("state")))
        try await first.run { client in _ = try await Self.bidder(client) { $0.state == .fresh } }
        await server?.stop()
        server = nil
        // A set is used only for the URL it came from.
        let second = try await InProcessDaemon(
            config: Self.config(["key_url": keepsURL ? url : url + "?v=2"], stateDirectory: state.path("state")))
        try await second.run { client in
            let (signal, errors) = try await Self.collect(client)
            if keepsURL {
                #expect(errors.isEmpty && signal?.keyID == 4)
                // Still fresh: fetched again only at half its lifetime, which fails.
                #expect(try await client.recipients().first?.lastError == nil)
                second.application.clock.advance(by: .seconds(2200))
                let status = try await Self.bidder(client) { $0.lastError != nil }
                #expect(status.state == .fresh && status.lastError?.contains("could not be reached") == true)
            } else {
                #expect(signal == nil)
                #expect(errors.map(\.code) == [.noRecipientKey] && errors.first?.recipient == "bidder")
            }
        }
    }

    @Test func pastMaxStaleOnlyThatRecipientAnswersNoRecipientKeyUntilItsURLAnswersAgain() async throws {
        let server = try await FakeAdServer()
        let keys = try PublishedKeys([9])
        Self.serve(keys, on: server, headers: ["Cache-Control": "max-age=300"])
        let daemon = try await InProcessDaemon(
            config: Self.config(["key_url": server.url("/keys"), "max_stale_ms": 600_000]))
        try await daemon.run { client in
            _ = try await Self.bidder(client) { $0.state == .fresh }
            server.answer("/keys", .init(status: 503))
            daemon.application.clock.advance(by: .seconds(301))
            let stale = try await Self.bidder(client) { $0.state == .stale && $0.lastError != nil }
            #expect(stale.lastError?.contains("answered HTTP 503") == true && stale.keyIDs == [9])
            #expect(try await Self.collect(client).0?.keyID == 9)
            daemon.application.clock.advance(by: .seconds(600))
            let expired = try await Self.bidder(client) { $0.state == .expired }
            #expect(expired.keyIDs.isEmpty)
            let result = try await client.collect(requestID: "past-stale")
            #expect(result.signals.map(\.recipient) == ["demo"], "the other recipient is unaffected")
            let failure = try #require(result.errors.first)
            #expect(result.errors.count == 1 && failure.code == .noRecipientKey && failure.recipient == "bidder")
            #expect(failure.adapter == "test-echo")
            #expect(failure.message.contains("expired") && failure.message.contains("HTTP 503"), "\(failure.message)")
            // The URL answers again: the next retry (at most 30 minutes on) takes it. (A retry
            // under way when the clock moves sets its next from then: move it until one lands.)
            Self.serve(keys, on: server, headers: ["Cache-Control": "max-age=86400"])
            _ = try await eventually {
                daemon.application.clock.advance(by: .seconds(1800))
                return try await client.recipients().first { $0.name == "bidder" && $0.state == .fresh }
            }
            #expect(try await Self.collect(client).0?.keyID == 9)
        }
    }

    @Test func eachBadAnswerKeepsTheLastGoodSetAndSaysWhy() async throws {
        let server = try await FakeAdServer()
        let keys = try PublishedKeys([1])
        Self.serve(keys, on: server, headers: ["Cache-Control": "max-age=300"])
        var unsupported = try PublishedKeys([2])
        unsupported.configs[0].algorithms = [.init(kdfID: 0x0003, aeadID: 0x0042)]
        var twice = try PublishedKeys([1])
        twice.configs += try PublishedKeys([1]).configs
        let type = "application/ohttp-keys"
        let answers: [(FakeAdServer.Answer, String)] = [
            (.init(status: 500, body: keys.body, contentType: type), "answered HTTP 500"),
            (.init(body: keys.body, contentType: "text/html"), "answered type text/html"),
            (.init(body: [0, 9, 1, 2, 3], contentType: type), "answered a body that is not a key set"),
            (.init(body: unsupported.body, contentType: type), "no configuration with a suite this daemon supports"),
            (.init(body: twice.body, contentType: type), "names two different keys"),
            (.init(body: [UInt8](repeating: 0, count: 70_000), contentType: type), "answered more than 65536 bytes"),
            (
                .init(status: 302, headers: ["Location": "http://localhost:\(server.port)/keys"]),
                "redirected to another server (http://localhost)"
            ),
            (.init(status: 302, headers: ["Location": "/keys-again"]), "redirected more than 3 times"),
        ]
        server.answer("/keys-again", .init(status: 302, headers: ["Location": "/keys"]))
        let daemon = try await InProcessDaemon(config: Self.config(["key_url": server.url("/keys")]))
        try await daemon.run { client in
            _ = try await Self.bidder(client) { $0.state == .fresh }
            for (answer, why) in answers {
                server.answer("/keys", answer)
                daemon.application.clock.advance(by: .seconds(1800))
                let status = try await Self.bidder(client) { $0.lastError?.contains(why) == true }
                #expect(status.keyIDs == [1] && status.state == .stale, "\(why)")
                #expect(try await Self.collect(client).0?.keyID == 1, "\(why)")
            }
            let metrics = String(decoding: try await client.request(.GET, "/metrics").body, as: UTF8.self)
            for outcome in ["status", "content_type", "undecodable", "no_supported_suite", "too_large", "redirect"] {
                #expect(metrics.contains(#"recipient="bidder",outcome="\#(outcome)""#), "\(outcome)")
            }
        }
    }

    @Test func anHTTPSURLIsTrustedThroughItsCAFileOnly() async throws {
        let directory = try TemporaryDirectory()
        let authority = try await TestCertificateAuthority(in: directory)
        let server = try await FakeAdServer(tls: try authority.serverTLS())
        let keys = try PublishedKeys([6])
        Self.serve(keys, on: server)
        #expect(server.url("/keys").hasPrefix("https://127.0.0.1:"))
        let trusted = try await InProcessDaemon(
            config: Self.config(["key_url": server.url("/keys"), "ca_file": authority.certificateFile]))
        try await trusted.run { client in
            _ = try await Self.bidder(client) { $0.state == .fresh }
            #expect(try await Self.collect(client).0?.keyID == 6)
        }
        // The system's authorities do not know this one.
        let untrusted = try await InProcessDaemon(config: Self.config(["key_url": server.url("/keys")]))
        try await untrusted.run { client in
            let status = try await Self.bidder(client) { $0.lastError != nil }
            #expect(status.state == .unavailable && status.lastError?.contains("could not be reached") == true)
            let (signal, errors) = try await Self.collect(client)
            #expect(signal == nil && errors.first?.message.contains("has no key set yet") == true)
        }
    }

    @Test func filesBesideAURLSealUntilTheFirstFetchAndAReloadKeepsTheFetchedSet() async throws {
        let server = try await FakeAdServer()
        let keys = try PublishedKeys([8])
        server.answer("/keys", .init(status: 503))
        let config = Self.config(["key_url": server.url("/keys"), "key_configs": [DemoRecipient.keyConfigPath]])
        let daemon = try await InProcessDaemon(config: config)
        let reloaded = try daemon.resolve(config)
        try await daemon.run { client in
            let waiting = try await Self.bidder(client) { $0.lastError != nil }
            #expect(waiting.state == .unavailable && waiting.keyIDs == [1])
            #expect(try await Self.collect(client).0?.keyID == 1)
            Self.serve(keys, on: server, headers: ["Cache-Control": "max-age=3600"])
            daemon.application.clock.advance(by: .seconds(60))
            _ = try await Self.bidder(client) { $0.state == .fresh && $0.keyIDs == [8] }
            let scheduled = try await Self.nextFetch(client)
            let fetches = server.requests("/keys").count
            try await daemon.application.reload(reloaded)
            let after = try #require(try await client.recipients().first { $0.name == "bidder" })
            #expect(after.keyIDs == [8])
            #expect(try await Self.collect(client).0?.keyID == 8)
            // The refresh runs on, on its schedule: a reload neither restarts nor reschedules it.
            #expect(try Self.milliseconds(after.nextFetchAt) == scheduled.at, "a reload does not fetch again")
            #expect(server.requests("/keys").count == fetches)
        }
    }

    @Test func aFetchThatStallsMidAnswerTimesOut() async throws {
        let server = try await FakeAdServer()
        let keys = try PublishedKeys([1])
        server.answer(
            "/keys", .init(body: keys.body, contentType: "application/ohttp-keys", bodyDelay: .seconds(10)))
        // Its own 0.5 s, not the answer's 10 s: the refusal says which timeout ended it.
        let refusal = await #expect(throws: KeySetResponse.Refusal.self) {
            try await HTTPKeySetFetcher(timeout: .milliseconds(500)).fetch(.init(url: server.url("/keys")))
        }
        #expect(refusal?.reason == .timeout && refusal?.description == "did not answer within 0.5 seconds")
    }

    @Test func aStoredSetFromTheClocksFutureIsUsedAsStaleAndFetchedAgainAtOnce() async throws {
        let state = try TemporaryDirectory()
        let server = try await FakeAdServer()
        server.answer("/keys", .init(status: 503))
        let keys = try PublishedKeys([3])
        let future = Int64(Date().timeIntervalSince1970 * 1000) + 10 * 86_400_000
        try RecipientKeyStore(directory: state.url.appendingPathComponent("state/recipients")).save(
            RecipientKeySet(configs: keys.configs, fetchedAt: future, lifetime: .seconds(86_400)), for: "bidder",
            url: server.url("/keys"))
        let daemon = try await InProcessDaemon(
            config: Self.config(["key_url": server.url("/keys")], stateDirectory: state.path("state")))
        try await daemon.run { client in
            #expect(try await Self.collect(client).0?.keyID == 3)
            let status = try await Self.bidder(client) { $0.lastError != nil }
            #expect(status.state == .stale && status.keyIDs == [3], "\(status)")
            #expect(try Self.milliseconds(status.freshUntil) <= Int64(Date().timeIntervalSince1970 * 1000) + 1000)
        }
    }

    @Test func aReloadToAnotherURLStopsTheOldRefreshAndKeepsOnlyTheNewSet() async throws {
        let server = try await FakeAdServer()
        let first = try PublishedKeys([1])
        let second = try PublishedKeys([2])
        server.answer("/a", .init(body: first.body, contentType: "application/ohttp-keys"))
        server.answer("/b", .init(body: second.body, contentType: "application/ohttp-keys"))
        let daemon = try await InProcessDaemon(config: Self.config(["key_url": server.url("/a")]))
        let reloaded = try daemon.resolve(Self.config(["key_url": server.url("/b")]))
        try await daemon.run { client in
            _ = try await Self.bidder(client) { $0.keyIDs == [1] }
            try await daemon.application.reload(reloaded)
            let status = try await Self.bidder(client) { $0.keyIDs == [2] && $0.state == .fresh }
            #expect(status.url == server.url("/b"))
            #expect(try await Self.collect(client).0?.keyID == 2)
            daemon.application.clock.advance(by: .seconds(2 * 86_400))
            _ = try await eventually { server.requests("/b").count >= 2 ? true : nil }
            #expect(server.requests("/a").count == 1, "the old URL's refresh stopped")
            let store = RecipientKeyStore(directory: daemon.directory.url.appendingPathComponent("state/recipients"))
            #expect(try store.load("bidder", url: server.url("/a")) == nil)
            #expect(try store.load("bidder", url: server.url("/b"))?.keyIDs == [2])
        }
    }
}
