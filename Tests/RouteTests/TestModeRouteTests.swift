import API
import Client
import Foundation
import TestSupport
import Testing

@testable import Daemon

/// Test loads (`"test": true`, an app with `test`) against real local bidders: the bid request
/// says `test: 1`, `line_item` tries one source alone, a test ad is never the unit's ready ad
/// nor counted toward its caps nor billed, and an app without `test` is refused.
struct TestModeRouteTests: MediationScenario {
    static let unit = "/test-mode/native"
    static let slow = "/test-mode/slow"
    static let dry = "/test-mode/dry"
    static let tester = PeerCredentials(pid: getpid(), uid: 1001, gid: 1001)
    static let plain = PeerCredentials(pid: getpid(), uid: 1002, gid: 1002)

    static func config(_ server: FakeAdServer) throws -> [String: Any] {
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid/best", .init(body: try AuctionRouteTests.bid(server, "best", price: 5)))
        server.answer("/bid/low", .init(body: try AuctionRouteTests.bid(server, "low", price: 2)))
        var config = Self.config(units: [
            unit: [
                "format": "native", "currency": "EUR", "frequency_caps": [["impressions": 1, "per_ms": 3_600_000]],
                "bidders": ["best", "low"].map { AuctionRouteTests.bidder(server, $0) },
                "waterfall": [Self.testItem(Self.native)],
            ],
            slow: ["format": "native", "waterfall": [Self.testItem(Self.native, ["delay_ms": 300])]],
            dry: [
                "format": "native", "max_retries": 2,
                "waterfall": [Self.testItem(Self.native, ["behavior": "no_fill"])],
            ],
        ])
        config["access"] = ["allowed_uids": [1001, 1002]]
        config["apps"] = [
            "registered": [
                "tv.example.tester": ["match": ["uid": 1001], "capabilities": ["ads", "test"]],
                "tv.example.plain": ["match": ["uid": 1002]],
            ]
        ]
        return config
    }

    static func load(_ client: DaemonClient, _ extra: [String: Any] = [:]) async throws -> (
        status: UInt, json: [String: Any]
    ) {
        try await FrequencyCapRouteTests.as(tester) {
            try await post(client, "/v1/ads", ["ad_unit": unit, "format": "native"].merging(extra) { $1 })
        }
    }

    @Test func aTestLoadIsMarkedNeverReadyNeverCappedAndNeverBilled() async throws {
        let server = try await FakeAdServer()
        let daemon = try await InProcessDaemon(config: try Self.config(server))
        try await daemon.run { client in
            let test = try await Self.load(client, ["test": true])
            #expect(test.status == 200, "\(test.json)")
            #expect(test.json["test"] as? Bool == true, "the app can label it a test ad")
            let asked = try #require(server.requests("/bid/best").first?.json)
            #expect(asked["test"] as? Int == 1)
            let testID = try #require(test.json["ad_id"] as? String)
            let impression = try await FrequencyCapRouteTests.as(Self.tester) {
                try await Self.post(client, "/v1/ads/\(testID)/impression")
            }
            #expect(impression.status == 200)

            // Its impression counted toward no cap, and it was not the unit's ready ad.
            let real = try await Self.load(client)
            #expect(real.status == 200, "a test impression does not cap the unit: \(real.json)")
            #expect(real.json["test"] == nil && real.json["ad_id"] as? String != testID)
            #expect(server.requests("/bid/best").last?.json?["test"] == nil, "a real load's request is real")
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/best/win", atLeast: 2) == 2)
            #expect(server.requests("/t/best/bill").isEmpty, "a test ad's billing is dropped, not sent")

            // A real ready ad is not handed to a test load, and a test load may load while capped.
            let realID = try #require(real.json["ad_id"] as? String)
            let again = try await Self.load(client, ["test": true])
            #expect(again.status == 200 && again.json["ad_id"] as? String != realID, "\(again.json)")
            #expect(try await Self.load(client).json["ad_id"] as? String == realID, "the ready ad is still ready")
            let shown = try await FrequencyCapRouteTests.as(Self.tester) {
                try await Self.post(client, "/v1/ads/\(realID)/impression")
            }
            #expect(shown.status == 200)
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/best/bill") == 1)
            #expect(try await Self.load(client, ["force": true]).status == 429, "the real impression caps it")
            #expect(try await Self.load(client, ["test": true]).status == 200, "a test load is never capped")

            let traces = try await FrequencyCapRouteTests.as(Self.tester) { try await client.inspectLoads() }
            #expect(traces.map(\.test) == [true, false, true, false, true], "newest first")
        }
    }

    /// `unit` as the tester's `GET /v1/ad_units` shows it.
    static func status(_ client: DaemonClient, _ unit: String) async throws -> [String: Any] {
        let reply = try await FrequencyCapRouteTests.as(tester) { try await client.request(.GET, "/v1/ad_units") }
        let units = try #require(
            (try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["ad_units"] as? [[String: Any]])
        return try #require(units.first { $0["id"] as? String == unit })
    }

    @Test func aTestLoadNeitherJoinsARealOneNorBecomesReadyNorIsRetried() async throws {
        let server = try await FakeAdServer()
        let daemon = try await InProcessDaemon(config: try Self.config(server))
        try await daemon.run { client in
            let events = daemon.events(adUnit: Self.slow)
            // Both in flight at once (the source answers after 300 ms): each its own load.
            async let real = Self.load(client, ["ad_unit": Self.slow])
            async let test = Self.load(client, ["ad_unit": Self.slow, "test": true])
            let (realAd, testAd) = try await (real, test)
            #expect(realAd.status == 200 && testAd.status == 200)
            #expect(realAd.json["ad_id"] as? String != testAd.json["ad_id"] as? String, "a test load joined a real one")
            var loaded: [String] = []
            for try await event in events where event.name == "loaded" {
                loaded.append(event.data)
                if loaded.count == 2 { break }
            }
            #expect(loaded.filter { $0.contains(#""test":true"#) }.count == 1, "\(loaded)")

            // A test ad is never the unit's ready ad; a failed test load is never retried.
            #expect(try await Self.status(client, Self.unit)["ready"] as? Bool == false)
            #expect(try await Self.load(client, ["test": true]).status == 200)
            #expect(try await Self.status(client, Self.unit)["ready"] as? Bool == false)
            #expect(try await Self.load(client, ["ad_unit": Self.dry, "test": true]).status == 404)
            #expect(try await Self.status(client, Self.dry)["next_retry_ms"] == nil)
            #expect(try await Self.load(client, ["ad_unit": Self.dry]).status == 404)
            let wait = try await Self.status(client, Self.dry)["next_retry_ms"] as? Int
            #expect(wait.map { (1...2_000).contains($0) } == true, "a real one is retried, in 2 s: \(wait ?? -1)")
        }
    }

    @Test func aLineItemIsTriedAloneAndAnUnknownOneIsNamed() async throws {
        let server = try await FakeAdServer()
        let daemon = try await InProcessDaemon(config: try Self.config(server))
        try await daemon.run { client in
            let low = try await Self.load(client, ["test": true, "line_item": "openrtb:low"])
            #expect(low.status == 200, "\(low.json)")
            let info = try #require(low.json["response_info"] as? [String: Any])
            let bids = try #require(info["bids"] as? [[String: Any]])
            #expect(bids.map { $0["parameter"] as? String } == ["low"] && bids.first?["outcome"] as? String == "won")
            #expect(server.requests("/bid/best").isEmpty, "the other bidder is not asked")

            let item = try await Self.load(client, ["test": true, "line_item": "test:\(Self.native)"])
            #expect(item.status == 200)
            let alone = try #require(item.json["response_info"] as? [String: Any])
            #expect(alone["bids"] == nil && (alone["attempts"] as? [Any])?.count == 1, "\(alone)")

            let unknown = try await Self.load(client, ["test": true, "line_item": "openrtb:nobody"])
            #expect(unknown.status == 400)
            let message = try #require((unknown.json["error"] as? [String: Any])?["message"] as? String)
            #expect(message.contains("no source 'openrtb:nobody'") && message.contains("openrtb:best"), "\(message)")
            let untested = try await Self.load(client, ["line_item": "openrtb:low"])
            #expect(untested.status == 400)
            #expect("\(untested.json)".contains("only applies to a test load"), "\(untested.json)")
        }
    }

    /// VAST has no test flag: a test load asks a line item's `test_tag`, or passes it over.
    @Test func aTestLoadAsksAVASTLineItemsTestTagAndNeverItsRealOne() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        let inline = try AdSourceRouteTests.inlineVAST(server)
        for path in ["/vast/real.xml", "/vast/test.xml", "/vast/untested.xml"] {
            server.answer(path, .init(body: Array(inline.utf8), contentType: "application/xml"))
        }
        var config = try Self.config(server)
        config["ad_units"] = [
            AdSourceRouteTests.rewardedUnit: [
                "format": "rewarded",
                "waterfall": [
                    ["network": "vast", "parameter": server.url("/vast/untested.xml")],
                    [
                        "network": "vast", "parameter": server.url("/vast/real.xml"),
                        "options": ["test_tag": server.url("/vast/test.xml")],
                    ],
                ],
            ]
        ]
        let daemon = try await InProcessDaemon(config: config)
        try await daemon.run { client in
            let load = try await FrequencyCapRouteTests.as(Self.tester) {
                try await Self.post(
                    client, "/v1/ads", ["ad_unit": AdSourceRouteTests.rewardedUnit, "format": "rewarded", "test": true])
            }
            #expect(load.status == 200, "\(load.json)")
            let attempts = try #require((load.json["response_info"] as? [String: Any])?["attempts"] as? [[String: Any]])
            try #require(attempts.map { $0["outcome"] as? String } == ["error", "filled"])
            #expect((attempts[0]["message"] as? String)?.contains("test_tag") == true, "\(attempts)")
            #expect(server.requests("/vast/test.xml").count == 1)
            #expect(server.requests("/vast/real.xml").isEmpty && server.requests("/vast/untested.xml").isEmpty)
        }
    }

    @Test func anAppWithoutTestMayNotLoadATestAd() async throws {
        let server = try await FakeAdServer()
        let daemon = try await InProcessDaemon(config: try Self.config(server))
        try await daemon.run { client in
            let refused = try await FrequencyCapRouteTests.as(Self.plain) {
                try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native", "test": true])
            }
            #expect(refused.status == 403)
            #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "not_permitted")
            #expect(server.requests("/bid/best").isEmpty, "refused before any network is asked")
        }
    }
}
