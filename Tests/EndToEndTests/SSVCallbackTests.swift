import Client
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Rewards' SSV callbacks through the daemon binary: signed as Google signs them, verified by
/// Python's `cryptography` from the verifier key set the CLI prints, sent once after a kill -9
/// and a restart while the publisher's server was down.
@Suite(.serialized)
struct SSVCallbackTests: MediationScenario {
    /// A signing key made by the CLI (key id 7) in `keys`, and the rewarded unit's configuration
    /// calling back `callback` with it, its state under `keys` too.
    static func config(keys: TemporaryDirectory, callback: String) async throws -> [String: Any] {
        let generate = try await Binary.run(
            "secure-signals", ["keys", "ssv-generate", "--key-id", "7", "--out", keys.path("ssv")])
        #expect(generate.status == 0, "\(generate.stderr)")
        var config = Self.config(units: [
            Self.rewarded: Self.unit(
                "rewarded", [Self.testItem(Self.rewarded)], extra: ["ssv": ["callback_url": callback]])
        ])
        config["ssv"] = ["signing_key": keys.path("ssv/ssv-7.pem"), "key_id": 7]
        config["state_directory"] = keys.path("state")
        return config
    }

    @Test func aCallbackOwedAcrossAKillArrivesOnceAndVerifiesAsGooglesDo() async throws {
        let keys = try TemporaryDirectory()
        let server = try await FakeAdServer()
        server.answer("/ssv", .init(status: 503))
        let config = try await Self.config(keys: keys, callback: server.url("/ssv?app=tv"))
        let verifier = try await Binary.run(
            "secure-signals", ["keys", "ssv-verifier", keys.path("ssv/ssv-7.pem"), "--key-id", "7"])
        #expect(verifier.status == 0, "\(verifier.stderr)")
        try Data(verifier.stdout).write(to: keys.url.appendingPathComponent("keys.json"))
        do {
            let daemon = try await RunningDaemon.start(config: config)
            let load = try await Self.post(
                daemon.client, "/v1/ads",
                [
                    "ad_unit": Self.rewarded, "format": "rewarded",
                    "ssv": ["user_id": "player 9", "custom_data": "a&b=c"],
                ])
            let id = try #require(load.json["ad_id"] as? String)
            #expect(try await Self.post(daemon.client, "/v1/ads/\(id)/show").status == 200)
            #expect(try await Self.post(daemon.client, "/v1/ads/\(id)/progress", ["event": "complete"]).status == 200)
            _ = try await eventually { server.requests("/ssv").first }
            daemon.send(SIGKILL)
            #expect(await daemon.waitForExit() != nil)
        }
        let refused = server.requests("/ssv").count
        server.answer("/ssv", .init(status: 200))
        let daemon = try await RunningDaemon.start(config: config)
        #expect(try await Self.post(daemon.client, "/testbed/clock", ["advance_ms": 3_600_000]).status == 200)
        _ = try await eventually {
            try await metricValue("secure_signals_tracker_outbox_pings", in: daemon.client) == 0 ? true : nil
        }
        let all = server.requests("/ssv")
        #expect(all.count == refused + 1, "once after the restart")
        let query = try #require(all.last?.query)
        // Every try is the same callback: one transaction, one signature.
        #expect(Set(all.map(\.query)).count == 1)

        let transaction = try #require(
            ((try await Self.rewards(daemon.client)).first)?["transaction_id"] as? String)
        let names = query.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1)[0] }
        #expect(
            names == [
                "app", "ad_network", "ad_unit", "custom_data", "reward_amount", "reward_item", "timestamp",
                "transaction_id", "user_id", "signature", "key_id",
            ])
        let fields = Dictionary(
            query.split(separator: "&").map {
                let pair = $0.split(separator: "=", maxSplits: 1).map(String.init)
                return (pair[0], pair[1].removingPercentEncoding ?? pair[1])
            }, uniquingKeysWith: { $1 })
        #expect(fields["ad_network"] == "test" && fields["ad_unit"] == Self.rewarded)
        #expect(fields["custom_data"] == "a&b=c" && fields["user_id"] == "player 9")
        #expect(fields["reward_amount"] == "10" && fields["reward_item"] == "coins" && fields["key_id"] == "7")
        #expect(fields["transaction_id"] == transaction)

        #expect(try await Self.verify(keys, query) == "valid")
        let tampered = query.replacingOccurrences(of: "reward_amount=10", with: "reward_amount=1000")
        #expect(try await Self.verify(keys, tampered) == "invalid: signature")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// What `Tests/Fixtures/ssv/verify.py` says of `query`.
    static func verify(_ keys: TemporaryDirectory, _ query: String) async throws -> String {
        let script = repositoryRoot.appendingPathComponent("Tests/Fixtures/ssv/verify.py").path
        let result = try await Binary.runProgram("/usr/bin/python3", [script, keys.path("keys.json"), query])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A test ad's reward is earned and kept for the app to claim, but its callback is never
    /// owed: the publisher's server would grant real currency for it. A real ad's is (the
    /// server answers 503, so it stays owed and counted).
    @Test func aTestAdsRewardIsKeptButNoCallbackIsOwed() async throws {
        let keys = try TemporaryDirectory()
        let server = try await FakeAdServer()
        server.answer("/ssv", .init(status: 503))
        let daemon = try await RunningDaemon.start(
            config: try await Self.config(keys: keys, callback: server.url("/ssv")))
        func earn(test: Bool) async throws {
            let load = try await Self.post(
                daemon.client, "/v1/ads", ["ad_unit": Self.rewarded, "format": "rewarded", "test": test, "force": true])
            let id = try #require(load.json["ad_id"] as? String, "\(load.json)")
            #expect(try await Self.post(daemon.client, "/v1/ads/\(id)/show").status == 200)
            #expect(try await Self.post(daemon.client, "/v1/ads/\(id)/progress", ["event": "complete"]).status == 200)
        }
        let owed = "secure_signals_tracker_outbox_pings"
        try await earn(test: true)
        #expect(try await Self.rewards(daemon.client).count == 1, "the app's flow is tested: the reward is kept")
        #expect(try await metricValue(owed, in: daemon.client) == 0)
        try await earn(test: false)
        #expect(try await Self.rewards(daemon.client).count == 2)
        #expect(try await metricValue(owed, in: daemon.client) == 1, "the real reward's callback is owed")
        _ = try await eventually { server.requests("/ssv").first }
        #expect(server.requests("/ssv").count == 1, "one callback was tried: the real one's")
    }

    static func rewards(_ client: DaemonClient) async throws -> [[String: Any]] {
        let reply = try await client.request(.GET, "/v1/rewards?state=all")
        return ((try JSONSerialization.jsonObject(with: reply.body)) as? [String: Any])?["rewards"] as? [[String: Any]]
            ?? []
    }
}
