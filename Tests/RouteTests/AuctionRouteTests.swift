import Client
import Foundation
import TestSupport
import Testing

@testable import Daemon

/// An ad unit's `openrtb` bidders asked at once through the routes, against real local bidders:
/// the best bid serves, each notice goes once with its reason, and `tmax` leaves the buffer.
struct AuctionRouteTests: MediationScenario {
    static let unit = "/auction/native"

    /// A native bid at `price` whose notices are `/t/NAME/win`, `/t/NAME/bill` and
    /// `/t/NAME/loss?reason=${AUCTION_LOSS}&min=${AUCTION_MIN_TO_WIN}` on `server`.
    static func bid(_ server: FakeAdServer, _ name: String, price: Double, exp: Int? = nil) throws -> [UInt8] {
        var response = try #require(
            try JSONSerialization.jsonObject(with: Data(try AdSourceRouteTests.nativeBid(server, price: price)))
                as? [String: Any])
        var seats = try #require(response["seatbid"] as? [[String: Any]])
        var bids = try #require(seats[0]["bid"] as? [[String: Any]])
        bids[0]["nurl"] = server.url("/t/\(name)/win?price=${AUCTION_PRICE}")
        bids[0]["burl"] = server.url("/t/\(name)/bill")
        bids[0]["lurl"] = server.url("/t/\(name)/loss?reason=${AUCTION_LOSS}&min=${AUCTION_MIN_TO_WIN}")
        if let exp { bids[0]["exp"] = exp }
        seats[0]["bid"] = bids
        response["seatbid"] = seats
        return Array(try JSONSerialization.data(withJSONObject: response))
    }

    static func bidder(_ server: FakeAdServer, _ name: String) -> [String: Any] {
        [
            "network": "openrtb", "parameter": name,
            "options": ["endpoint": server.url("/bid/\(name)"), "currency": "EUR"],
        ]
    }

    @Test func theBestBidServesAndEveryBidderHearsOnceWhy() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid/low", .init(body: try Self.bid(server, "low", price: 2)))
        server.answer("/bid/best", .init(body: try Self.bid(server, "best", price: 5, exp: 30)))
        server.answer("/bid/cheap", .init(body: try Self.bid(server, "cheap", price: 0.4)))
        server.answer("/bid/silent", .init(status: 204))
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "floor_cpm": 1,
                "auction": ["timeout_ms": 600, "processing_ms": 50, "network_buffer_ms": 40],
                "bidders": ["low", "best", "cheap", "silent"].map { Self.bidder(server, $0) },
                "waterfall": [
                    [
                        "network": "test", "parameter": "/21775744923/example/native", "cpm": 3,
                        "options": ["behavior": "no_fill"],
                    ]
                ],
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let load = try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native"])
            #expect(load.status == 200, "\(load.json)")
            let info = try #require(load.json["response_info"] as? [String: Any])
            #expect(info["network"] as? String == "openrtb")
            // The bid's exp (30 s) bounds the unit's hour.
            let expires = try #require(
                (load.json["expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(expires.timeIntervalSinceNow > 20 && expires.timeIntervalSinceNow <= 31, "\(expires)")
            // The bid of 5 is worth more than the line item of 3: it goes first, and serves.
            let attempts = try #require(info["attempts"] as? [[String: Any]])
            #expect(attempts.map { $0["parameter"] as? String } == ["best"])
            let bids = try #require(info["bids"] as? [[String: Any]])
            #expect(bids.map { $0["parameter"] as? String } == ["low", "best", "cheap", "silent"])
            #expect(bids.map { $0["outcome"] as? String } == ["lost", "won", "lost", "no_bid"])
            #expect(bids.map { $0["loss_reason"] as? Int } == [102, nil, 100, nil])

            // Every bid request at once, each told the bidders' time less the network buffer.
            for name in ["low", "best", "cheap", "silent"] {
                let request = try #require(server.requests("/bid/\(name)").first?.json, "\(name) was asked")
                let tmax = try #require(request["tmax"] as? Int)
                #expect(tmax > 0 && tmax <= 510, "\(name): tmax \(tmax)")
            }

            #expect(try await AdSourceRouteTests.settledCount(server, "/t/best/win") == 1)
            #expect(server.requests("/t/best/win").first?.query == "price=5")
            #expect(try await AdSourceRouteTests.settledCount(server, "/t/low/loss") == 1)
            #expect(server.requests("/t/low/loss").first?.query == "reason=102&min=5")
            #expect(try await AdSourceRouteTests.settledCount(server, "/t/cheap/loss") == 1)
            #expect(server.requests("/t/cheap/loss").first?.query == "reason=100&min=1")
            #expect(server.requests("/t/best/loss").isEmpty && server.requests("/t/low/win").isEmpty)
            #expect(server.requests("/t/best/bill").isEmpty, "billing waits for the impression")

            let id = try #require(load.json["ad_id"] as? String)
            #expect(try await Self.post(client, "/v1/ads/\(id)/impression").status == 200)
            #expect(try await AdSourceRouteTests.settledCount(server, "/t/best/bill") == 1)
        }
    }

    @Test func aWinnerWhoseAdCannotLoadLosesAndTheLineItemServes() async throws {
        let server = try await FakeAdServer()
        var broken = try #require(
            try JSONSerialization.jsonObject(with: Data(try Self.bid(server, "broken", price: 9))) as? [String: Any])
        var seats = try #require(broken["seatbid"] as? [[String: Any]])
        var bids = try #require(seats[0]["bid"] as? [[String: Any]])
        bids[0]["adm"] = "not a native response"
        seats[0]["bid"] = bids
        broken["seatbid"] = seats
        server.answer("/bid/broken", .init(body: Array(try JSONSerialization.data(withJSONObject: broken))))
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "bidders": [Self.bidder(server, "broken")],
                "waterfall": [["network": "test", "parameter": "/21775744923/example/native", "cpm": 1]],
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let load = try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native"])
            #expect(load.status == 200, "\(load.json)")
            let info = try #require(load.json["response_info"] as? [String: Any])
            #expect(info["network"] as? String == "test")
            #expect(try await AdSourceRouteTests.settledCount(server, "/t/broken/loss") == 1)
            #expect(server.requests("/t/broken/loss").first?.query == "reason=1&min=")
            #expect(server.requests("/t/broken/win").isEmpty, "no win notice for an ad that did not load")
        }
    }

    @Test func aBidderMustBeANetworkThatBidsAndPricesMustBeCPMs() throws {
        let directory = try TemporaryDirectory()
        func problems(_ unit: [String: Any]) -> String {
            do {
                _ = try InProcessDaemon.resolve(
                    demoConfig(adapters: [], extra: ["ad_units": ["u": unit]]), directory: directory)
                return ""
            } catch {
                return "\(error)"
            }
        }
        let testBidder: [String: Any] = ["network": "test", "parameter": "/21775744923/example/native"]
        #expect(problems(["format": "native", "bidders": [testBidder]]).contains("test does not bid"))
        #expect(problems(["format": "native", "waterfall": [testBidder], "floor_cpm": -1]).contains("floor_cpm"))
        var priced = testBidder
        priced["cpm"] = "high"
        #expect(problems(["format": "native", "waterfall": [priced]]).contains("must be a number (a CPM)"))
        #expect(problems(["format": "native", "waterfall": []]).contains("needs a line item (or the unit a bidder)"))
        #expect(
            problems([
                "format": "native", "waterfall": [testBidder],
                "auction": ["timeout_ms": 100, "processing_ms": 60, "network_buffer_ms": 40],
            ]).contains("must leave the bidders time"))
        #expect(problems(["format": "native", "waterfall": [testBidder], "floor_cpm": 0.5]) == "")
    }
}
