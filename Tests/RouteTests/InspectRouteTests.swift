import API
import Client
import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon

/// The inspector through the routes, against real local bidders: each load's bidders (seat,
/// bid id, creative, advertiser domains, price, loss reason, time given) and sources (start,
/// latency, outcome, message), each signals request's adapters (cache, circuit, latency,
/// recipients, the consent decision), never a consent string, and each app's own.
struct InspectRouteTests: MediationScenario {
    static let unit = "/inspect/native"

    /// A bid at `price` from seat `seat`, creative `crid`, for `domain`, its loss notice `/t/SEAT/loss`.
    static func bid(_ server: FakeAdServer, price: Double, seat: String, crid: String, domain: String) throws
        -> [UInt8]
    {
        var response = try #require(
            try JSONSerialization.jsonObject(with: Data(try AdSourceRouteTests.nativeBid(server, price: price)))
                as? [String: Any])
        var seats = try #require(response["seatbid"] as? [[String: Any]])
        var bids = try #require(seats[0]["bid"] as? [[String: Any]])
        bids[0]["id"] = "bid-\(seat)"
        bids[0]["crid"] = crid
        bids[0]["adomain"] = [domain]
        bids[0]["lurl"] = server.url("/t/\(seat)/loss?reason=${AUCTION_LOSS}")
        seats[0]["bid"] = bids
        seats[0]["seat"] = seat
        response["seatbid"] = seats
        return Array(try JSONSerialization.data(withJSONObject: response))
    }

    static func auctionConfig(_ server: FakeAdServer) throws -> [String: Any] {
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer(
            "/bid/best", .init(body: try Self.bid(server, price: 5, seat: "s1", crid: "c1", domain: "a.example")))
        server.answer(
            "/bid/low", .init(body: try Self.bid(server, price: 0.5, seat: "s2", crid: "c2", domain: "b.example")))
        server.answer("/bid/silent", .init(status: 204))
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "floor_cpm": 1, "currency": "EUR",
                "auction": ["timeout_ms": 5000, "processing_ms": 50, "network_buffer_ms": 40],
                // Each bidder's own time is the line item's 2 s, not its 800 ms default: a loaded machine
                // has taken more than 800 ms to answer a local request.
                "bidders": ["best", "low", "silent"].map {
                    AuctionRouteTests.bidder(server, $0, timeoutMilliseconds: 2000)
                },
                "waterfall": [Self.testItem(Self.native, ["behavior": "error"]).merging(["cpm": 9]) { $1 }],
            ]
        ]
        return demoConfig(adapters: [SignalRouteTests.echo], extra: ["ad_units": units])
    }

    @Test func aLoadsTraceHasEveryBidderAndSourceInOrderWithTheirTimes() async throws {
        let server = try await FakeAdServer()
        let daemon = try await InProcessDaemon(config: try Self.auctionConfig(server))
        try await daemon.run { client in
            let privacy = try JSONSerialization.data(withJSONObject: [
                "privacy": ["limit_ad_tracking": false, "tcf_consent": SignalRouteTests.tcString, "gdpr_applies": true]
            ])
            #expect(try await client.request(.PUT, "/v1/privacy", json: privacy).status == 200)
            let loaded = try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native"])
            #expect(loaded.status == 200, "\(loaded.json)")

            let loads = try await client.inspectLoads()
            #expect(loads.count == 1)
            let trace = try #require(loads.first)
            #expect(trace.adUnit == Self.unit && trace.outcome == "filled" && trace.network == "openrtb")
            #expect(trace.adID == loaded.json["ad_id"] as? String)
            #expect(trace.privacy.set && trace.privacy.tcf && trace.privacy.gdprApplies == true)
            #expect(trace.retry == nil && !trace.test)

            try #require(trace.bidders.map(\.parameter) == ["best", "low", "silent"])
            let best = trace.bidders[0]
            #expect(best.outcome == .won && best.price == 5 && best.currency == "EUR")
            #expect(
                best.bid == BidDetails(seat: "s1", bidID: "bid-s1", creativeID: "c1", advertiserDomains: ["a.example"]))
            #expect(
                best.timeMilliseconds == 2000, "the time it was given: its own timeout, under the auction's 4950 ms")
            let low = trace.bidders[1]
            #expect(low.outcome == .lost && low.lossReason == .belowFloor && low.price == 0.5)
            #expect(low.bid?.seat == "s2" && low.bid?.creativeID == "c2")
            #expect(trace.bidders[2].outcome == .noBid && trace.bidders[2].bid == nil)

            // The line item worth 9 is tried first, fails, then the best bid's ad serves.
            try #require(trace.sources.map(\.kind) == [.lineItem, .bid])
            #expect(trace.sources.map(\.outcome) == [.error, .filled])
            #expect(trace.sources[0].message?.isEmpty == false)
            let starts = trace.sources.map(\.startMilliseconds)
            #expect(starts[0] >= 0 && starts[1] >= starts[0] + trace.sources[0].latencyMilliseconds - 0.01)
            #expect(trace.durationMilliseconds >= starts[1])

            // The same by its id (its notices may have been tried since); the list filters by
            // outcome and unit.
            let again = try await client.inspectLoad(String(trace.id))
            #expect(again.bidders == trace.bidders && again.sources == trace.sources && again.adID == trace.adID)

            // Each notice its bids were owed, with the status its server answered, as they go
            // after the load: the win, the loss under the floor, and the billing at the impression.
            let adID = try #require(loaded.json["ad_id"] as? String)
            #expect(try await Self.post(client, "/v1/ads/\(adID)/impression").status == 200)
            let noticed = try await eventually {
                let notices = try? await client.inspectLoad(String(trace.id)).notices
                return notices?.filter { $0.outcome == .sent }.count == 3 ? notices : nil
            }
            let described = noticed.map {
                "\($0.network) \($0.parameter) \($0.kind.rawValue) \($0.status ?? 0) \($0.attempts)"
            }
            #expect(
                Set(described) == ["openrtb best win 200 1", "openrtb low loss 200 1", "openrtb best billing 200 1"])
            #expect(try await client.inspectLoads(outcome: "no_fill").isEmpty)
            #expect(try await client.inspectLoads(adUnit: "/other").isEmpty)
            let missing = try await client.request(Endpoints.inspectLoad, "999999")
            #expect(missing.status == 404 && missing.apiError?.code == "unknown_trace")
            let notANumber = try await client.request(Endpoints.inspectLoad, "latest")
            #expect(notANumber.status == 400 && notANumber.apiError?.message.contains("\"latest\"") == true)
            let badLimit = try await client.request(Endpoints.inspectLoads, query: [("limit", "0")])
            #expect(badLimit.status == 400 && badLimit.apiError?.message.contains("limit") == true)

            // No consent string, in the load's trace or the signals request its bidders made.
            for endpoint in [Endpoints.inspectLoads, Endpoints.inspectSignals] {
                let body = String(decoding: try await client.request(endpoint).body, as: UTF8.self)
                #expect(!body.contains(SignalRouteTests.tcString))
            }
        }
    }

    @Test func aSignalsTraceHasEachAdapterWithCacheCircuitAndTheConsentDecision() async throws {
        let echo = SignalRouteTests.echo.merging(["cache_ttl_ms": 60_000]) { $1 }
        let denied: [String: Any] = [
            "name": "test-throw", "recipients": ["demo"], "consent": ["gvl_vendor_id": 99, "purposes": [1]],
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [echo, denied]))
        try await daemon.run { client in
            let privacy = try JSONSerialization.data(withJSONObject: [
                "privacy": ["limit_ad_tracking": false, "tcf_consent": SignalRouteTests.tcString, "gdpr_applies": true]
            ])
            #expect(try await client.request(.PUT, "/v1/privacy", json: privacy).status == 200)
            _ = try await client.collect(requestID: "first")
            _ = try await client.collect(requestID: "second", adapters: ["test-echo", "nope"])
            let traces = try await client.inspectSignals()
            try #require(traces.map(\.requestID) == ["second", "first"])
            let first = traces[1]
            try #require(first.adapters.map(\.adapter) == ["test-echo", "test-throw"])
            #expect(first.adapters[0].outcome == "signal" && first.adapters[0].sealedFor == ["demo"])
            #expect(first.adapters[0].circuit == .closed && first.adapters[0].latencyMilliseconds != nil)
            #expect(first.adapters[1].outcome == "consent_missing" && first.adapters[1].latencyMilliseconds == nil)
            #expect(first.adapters[1].message?.contains("99") == true, "the decision's reason names the vendor")
            #expect(first.privacy.tcf && first.deadlineMilliseconds > 0)
            let second = traces[0]
            #expect(second.adapters.map(\.outcome) == ["cached", "unknown_adapter"])
            #expect(try await client.inspectLoads().isEmpty, "a signals request is not a load")
        }
    }

    @Test func anAppSeesOnlyItsOwnTracesAndAnInspectAppSeesAll() async throws {
        let daemon = try await InProcessDaemon(config: AppOwnershipTests.appsConfig())
        try await daemon.run { client in
            let load: [String: Any] = ["ad_unit": Self.rewarded, "format": "rewarded"]
            #expect(
                try await AppOwnershipTests.as(AppOwnershipTests.news) { try await Self.post(client, "/v1/ads", load) }
                    .status == 200)
            let id = try #require(
                try await AppOwnershipTests.as(AppOwnershipTests.news) { try await client.inspectLoads() }.first?.id)
            try await AppOwnershipTests.as(AppOwnershipTests.quiz) { () async throws in
                #expect(try await client.inspectLoads().isEmpty)
                #expect(try await client.inspectLoads(app: "tv.example.news").isEmpty)
                let reply = try await client.request(Endpoints.inspectLoad, String(id))
                #expect(reply.status == 404 && reply.apiError?.code == "unknown_trace")
            }
            try await AppOwnershipTests.as(AppOwnershipTests.inspector) { () async throws in
                let all = try await client.inspectLoads()
                #expect(all.map(\.app) == ["tv.example.news"])
                #expect(try await client.inspectLoad(String(id)).app == "tv.example.news")
            }
        }
    }

    @Test func theRingKeepsInspectMaxTracesAndZeroTurnsItOff() async throws {
        var config = Self.config(units: [Self.native: Self.unit("native", [Self.testItem(Self.native)])])
        config["inspect"] = ["max_traces": 2]
        let daemon = try await InProcessDaemon(config: config)
        try await daemon.run { (client: DaemonClient) async throws in
            for _ in 0..<4 {
                #expect(
                    try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native", "force": true])
                        .status == 200)
            }
            #expect(try await client.inspectLoads().map(\.id) == [4, 3])
        }
        config["inspect"] = ["max_traces": 0]
        let off = try await InProcessDaemon(config: config)
        try await off.run { (client: DaemonClient) async throws in
            #expect(try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"]).status == 200)
            #expect(try await client.inspectLoads().isEmpty)
        }
    }

    @Test func aCappedLoadIsTracedAsFrequencyCapped() async throws {
        let capped = Self.unit(
            "native", [Self.testItem(Self.native)], extra: ["frequency_caps": [["impressions": 1, "per_ms": 60_000]]])
        let daemon = try await InProcessDaemon(config: Self.config(units: [Self.native: capped]))
        try await daemon.run { client in
            let ad = try #require(
                try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"]).json["ad_id"]
                    as? String)
            #expect(try await Self.post(client, "/v1/ads/\(ad)/impression").status == 200)
            #expect(try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"]).status == 429)
            let outcomes = try await client.inspectLoads().map(\.outcome)
            #expect(outcomes == ["frequency_capped", "filled"])
        }
    }
}
