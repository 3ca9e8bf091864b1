import Client
import Foundation
import TestSupport
import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// Frequency caps and pacing through the routes: counted per app (peer uid), a capped load
/// answered 429 with how long to wait, `GET /v1/ad_units` saying so beforehand, the testbed's
/// clock ending the wait, and the counts kept across a restart.
struct FrequencyCapRouteTests: MediationScenario {
    static let alice = PeerCredentials(pid: getpid(), uid: 1000, gid: 1000)
    static let bob = PeerCredentials(pid: getpid(), uid: 1001, gid: 1001)

    /// `body`'s requests come from `peer`.
    static func `as`<T>(_ peer: PeerCredentials, _ body: () async throws -> T) async rethrows -> T {
        try await PeerCredentialScope.$current.withValue(peer) { try await body() }
    }

    /// The native unit, capped at `impressions` per `perMilliseconds` and paced, both peers allowed.
    static func config(caps: [[String: Any]], pacing: Int? = nil, state: TemporaryDirectory? = nil) -> [String: Any] {
        var extra: [String: Any] = ["frequency_caps": caps]
        if let pacing { extra["pacing_ms"] = pacing }
        var config = config(units: [
            native: unit("native", [testItem(native)], extra: extra),
            rewarded: unit("rewarded", [testItem(rewarded)], extra: extra),
        ])
        config["access"] = ["allowed_uids": [1000, 1001]]
        if let state { config["state_directory"] = state.path("state") }
        return config
    }

    /// Loads a native ad anew; the status, and the answer's JSON and `Retry-After`.
    static func load(_ client: DaemonClient, _ unit: String = native, format: String = "native") async throws -> (
        status: UInt, json: [String: Any], retryAfter: String?
    ) {
        let reply = try await client.request(
            .POST, "/v1/ads",
            json: try JSONSerialization.data(withJSONObject: ["ad_unit": unit, "format": format, "force": true]))
        return (
            reply.status, (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:],
            reply.headers["retry-after"]
        )
    }

    /// Loads a native ad and records its impression.
    static func seen(_ client: DaemonClient) async throws {
        let load = try await load(client)
        #expect(load.status == 200)
        let id = try #require(load.json["ad_id"] as? String)
        #expect(try await post(client, "/v1/ads/\(id)/impression").json["recorded"] as? Bool == true)
    }

    /// The unit `id` as `GET /v1/ad_units` lists it.
    static func status(_ client: DaemonClient, _ id: String = native) async throws -> [String: Any] {
        let reply = try await client.request(.GET, "/v1/ad_units")
        #expect(reply.status == 200)
        let units =
            (try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["ad_units"] as? [[String: Any]]
        return try #require(units?.first { $0["id"] as? String == id })
    }

    static func advance(_ client: DaemonClient, milliseconds: Int) async throws {
        #expect(try await post(client, "/testbed/clock", ["advance_ms": milliseconds]).status == 200)
    }

    @Test func aCappedAppIsRefusedUntilItsWindowPassesWhileAnotherAppIsNot() async throws {
        let daemon = try await InProcessDaemon(
            config: Self.config(caps: [["impressions": 2, "per_ms": 60_000]], pacing: 10_000))
        try await daemon.run { client in
            try await Self.as(Self.alice) {
                let before = try await Self.status(client)
                #expect(before["format"] as? String == "native" && before["capped"] as? Bool == false)
                #expect(before["pacing_ms"] as? Int == 10_000 && before["retry_after_ms"] == nil)
                let caps = before["frequency_caps"] as? [[String: Any]]
                #expect(caps?.count == 1 && caps?.first?["impressions"] as? Int == 2)
                #expect(caps?.first?["per_ms"] as? Int == 60_000 && caps?.first?["shown"] as? Int == 0)

                try await Self.seen(client)
                // Paced: the next may come 10 s after this one.
                let paced = try await Self.load(client)
                #expect(paced.status == 429 && Self.errorCode(paced.json) == "frequency_capped")
                let wait = try #require(paced.json["retry_after_ms"] as? Int)
                // The testbed's clock also moves with real time, which a busy machine stretches.
                #expect((5_000...10_000).contains(wait), "\(wait)")
                #expect(paced.retryAfter == "\((wait + 999) / 1000)")
                #expect(paced.json["ad_id"] == nil && paced.json["response_info"] == nil)
            }
            // Another app is not capped by alice's impressions.
            try await Self.as(Self.bob) { () async throws in
                #expect(try await Self.status(client)["capped"] as? Bool == false)
                #expect(try await Self.load(client).status == 200)
            }
            try await Self.advance(client, milliseconds: 10_000)
            try await Self.as(Self.alice) {
                try await Self.seen(client)
                // Two in the minute: the cap, longer than the pacing, wins; it ends when the first leaves.
                let capped = try await Self.load(client)
                #expect(capped.status == 429 && Self.errorCode(capped.json) == "frequency_capped")
                let wait = try #require(capped.json["retry_after_ms"] as? Int)
                #expect((40_000...50_000).contains(wait), "\(wait)")
                let status = try await Self.status(client)
                #expect(status["capped"] as? Bool == true)
                #expect(((wait - 1000)...wait).contains(status["retry_after_ms"] as? Int ?? 0))
                #expect((status["frequency_caps"] as? [[String: Any]])?.first?["shown"] as? Int == 2)
                let until = try #require(status["capped_until"] as? String)
                #expect(try Date(until, strategy: .iso8601) > Date().addingTimeInterval(30))
            }
            try await Self.advance(client, milliseconds: 50_000)
            try await Self.as(Self.alice) { () async throws in
                #expect(try await Self.status(client)["capped"] as? Bool == false)
                #expect(try await Self.load(client).status == 200)
            }
            #expect(
                try await metricValue(
                    #"secure_signals_ad_loads_capped_total{ad_unit="\#(Self.native)"}"#, in: client) == 2)
        }
    }

    @Test func aShownRewardedAdCountsAndAReadyAdIsListed() async throws {
        let daemon = try await InProcessDaemon(config: Self.config(caps: [["impressions": 1, "per_ms": 3_600_000]]))
        try await daemon.run { client in
            try await Self.as(Self.alice) {
                let load = try await Self.load(client, Self.rewarded, format: "rewarded")
                let id = try #require(load.json["ad_id"] as? String)
                #expect(try await Self.status(client, Self.rewarded)["ready"] as? Bool == true)
                #expect(try await Self.post(client, "/v1/ads/\(id)/show").status == 200)
                let status = try await Self.status(client, Self.rewarded)
                #expect(status["ready"] as? Bool == false && status["capped"] as? Bool == true)
                #expect(try await Self.load(client, Self.rewarded, format: "rewarded").status == 429)
                // The native unit has its own count.
                #expect(try await Self.status(client)["capped"] as? Bool == false)
            }
        }
    }

    @Test func capsAndPacingAreCheckedWhenTheConfigurationIsRead() throws {
        let directory = try TemporaryDirectory()
        func problems(_ extra: [String: Any]) -> String {
            AuctionRouteTests.problems(
                ["format": "native", "waterfall": [Self.testItem(Self.native)]].merging(extra) { $1 }, in: directory)
        }
        #expect(
            problems(["frequency_caps": [["impressions": 0, "per_ms": 1000]]]).contains(
                "ad_units.u.frequency_caps[0].impressions: must be between 1 and 1000000, not 0"))
        #expect(problems(["frequency_caps": [["impressions": 3]]]).contains("frequency_caps[0].per_ms: is required"))
        #expect(
            problems(["frequency_caps": [["impressions": 3, "per_ms": 1000, "per": "day"]]]).contains(
                "frequency_caps[0].per: unknown key"))
        #expect(
            problems(["frequency_caps": [["impressions": NSNull(), "per_ms": 1000]]]).contains(
                "frequency_caps[0].impressions: is required"))
        #expect(problems(["frequency_caps": [["impressions": 3, "per_ms": 40_000_000_000]]]).contains("per_ms"))
        #expect(problems(["pacing_ms": 0]).contains("ad_units.u.pacing_ms: must be between 1 and"))
        #expect(problems(["pacing_ms": 1.5]).contains("pacing_ms: must be a whole number"))
        #expect(
            problems([
                "frequency_caps": [
                    ["impressions": 3, "per_ms": 3_600_000], ["impressions": 10, "per_ms": 86_400_000],
                ],
                "pacing_ms": 30_000,
            ]) == "")
    }

    @Test func theCountsSurviveARestart() async throws {
        let state = try TemporaryDirectory()
        let config = Self.config(caps: [["impressions": 1, "per_ms": 3_600_000]], state: state)
        let first = try await InProcessDaemon(config: config)
        try await first.run { client in
            try await Self.as(Self.alice) {
                try await Self.seen(client)
                #expect(try await Self.load(client).status == 429)
            }
        }
        let second = try await InProcessDaemon(config: config)
        try await second.run { client in
            try await Self.as(Self.alice) {
                let load = try await Self.load(client)
                #expect(load.status == 429 && Self.errorCode(load.json) == "frequency_capped")
                #expect((3_500_000...3_600_000).contains(load.json["retry_after_ms"] as? Int ?? 0))
            }
            try await Self.as(Self.bob) { () async throws in #expect(try await Self.load(client).status == 200) }
        }
    }
}
