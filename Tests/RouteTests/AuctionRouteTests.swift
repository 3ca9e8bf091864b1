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
    /// `/t/NAME/loss?reason=${AUCTION_LOSS}&min=${AUCTION_MIN_TO_WIN}` on `server`; `adm`
    /// replaces its markup.
    static func bid(
        _ server: FakeAdServer, _ name: String, price: Double, exp: Int? = nil, adm: String? = nil
    ) throws -> [UInt8] {
        var response = try #require(
            try JSONSerialization.jsonObject(with: Data(try AdSourceRouteTests.nativeBid(server, price: price)))
                as? [String: Any])
        var seats = try #require(response["seatbid"] as? [[String: Any]])
        var bids = try #require(seats[0]["bid"] as? [[String: Any]])
        bids[0]["nurl"] = server.url("/t/\(name)/win?price=${AUCTION_PRICE}")
        bids[0]["burl"] = server.url("/t/\(name)/bill")
        bids[0]["lurl"] = server.url("/t/\(name)/loss?reason=${AUCTION_LOSS}&min=${AUCTION_MIN_TO_WIN}")
        if let exp { bids[0]["exp"] = exp }
        if let adm { bids[0]["adm"] = adm }
        seats[0]["bid"] = bids
        response["seatbid"] = seats
        return Array(try JSONSerialization.data(withJSONObject: response))
    }

    /// A native load of the auction unit, which must serve: its answer and its `response_info`.
    static func loadNative(_ client: DaemonClient) async throws -> (json: [String: Any], info: [String: Any]) {
        let load = try await post(client, "/v1/ads", ["ad_unit": unit, "format": "native"])
        #expect(load.status == 200, "\(load.json)")
        return (load.json, try #require(load.json["response_info"] as? [String: Any]))
    }

    /// An `openrtb` bidder with no `currency` option: it asks in its unit's.
    static func bidder(_ server: FakeAdServer, _ name: String, timeoutMilliseconds: Int? = nil) -> [String: Any] {
        var options: [String: Any] = ["endpoint": server.url("/bid/\(name)")]
        options["timeout_ms"] = timeoutMilliseconds
        return ["network": "openrtb", "parameter": name, "options": options]
    }

    /// Each network's requests as a line item and as a bidder, its bids, wins, losses by reason
    /// and latency, from each load's `response_info`.
    @Test func eachNetworkIsCountedByKindOutcomeAndLossReason() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid/best", .init(body: try Self.bid(server, "best", price: 5)))
        server.answer("/bid/low", .init(body: try Self.bid(server, "low", price: 2)))
        server.answer("/bid/silent", .init(status: 204))
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "floor_cpm": 1, "currency": "EUR",
                "auction": ["timeout_ms": 5000, "processing_ms": 50, "network_buffer_ms": 40],
                "bidders": ["best", "low", "silent"].map { Self.bidder(server, $0) },
                "waterfall": [Self.testItem(Self.native, ["behavior": "error"])],
            ],
            "/waterfall": Self.unit(
                "native", [Self.testItem(Self.native, ["behavior": "error"]), Self.testItem(Self.native)]),
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            _ = try await Self.loadNative(client)
            #expect(
                try await Self.post(client, "/v1/ads", ["ad_unit": "/waterfall", "format": "native"]).status == 200)
            let metrics = try await metricsText(client)
            for line in [
                #"secure_signals_network_requests_total{kind="bidder",network="openrtb",outcome="won"} 1"#,
                #"secure_signals_network_requests_total{kind="bidder",network="openrtb",outcome="lost"} 1"#,
                #"secure_signals_network_requests_total{kind="bidder",network="openrtb",outcome="no_bid"} 1"#,
                #"secure_signals_network_requests_total{kind="line_item",network="openrtb",outcome="filled"} 1"#,
                #"secure_signals_network_requests_total{kind="line_item",network="test",outcome="error"} 1"#,
                #"secure_signals_network_requests_total{kind="line_item",network="test",outcome="filled"} 1"#,
                #"secure_signals_network_bids_total{network="openrtb"} 2"#,
                #"secure_signals_network_wins_total{network="openrtb"} 1"#,
                #"secure_signals_network_losses_total{network="openrtb",reason="102"} 1"#,
                #"secure_signals_network_request_seconds_count{kind="bidder",network="openrtb"} 3"#,
                #"secure_signals_network_request_seconds_count{kind="line_item",network="test"} 2"#,
            ] {
                #expect(metrics.contains(line), "\(line)")
            }
            #expect(metrics.contains("# HELP secure_signals_network_losses_total "))
        }
    }

    @Test func theBestBidServesAndEveryBidderHearsOnceWhy() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid/low", .init(body: try Self.bid(server, "low", price: 2)))
        server.answer("/bid/best", .init(body: try Self.bid(server, "best", price: 5, exp: 30)))
        server.answer("/bid/cheap", .init(body: try Self.bid(server, "cheap", price: 0.4)))
        server.answer("/bid/silent", .init(status: 204))
        server.answer("/bid/quick", .init(status: 204))
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "floor_cpm": 1, "currency": "EUR",
                // Time enough for a suite that keeps tasks waiting for a core: every bidder answers
                // at once, so the load does not wait it out.
                "auction": ["timeout_ms": 5000, "processing_ms": 50, "network_buffer_ms": 40],
                "bidders": ["low", "best", "cheap", "silent"].map { Self.bidder(server, $0) }
                    + [Self.bidder(server, "quick", timeoutMilliseconds: 2000)],
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
            let (load, info) = try await Self.loadNative(client)
            #expect(info["network"] as? String == "openrtb")
            // The bid's exp (30 s) bounds the unit's hour.
            let expires = try #require(
                (load["expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(expires.timeIntervalSinceNow > 20 && expires.timeIntervalSinceNow <= 31, "\(expires)")
            // The bid of 5 is worth more than the line item of 3: it goes first, and serves.
            let attempts = try #require(info["attempts"] as? [[String: Any]])
            #expect(attempts.map { $0["parameter"] as? String } == ["best"])
            let bids = try #require(info["bids"] as? [[String: Any]])
            try #require(bids.map { $0["parameter"] as? String } == ["low", "best", "cheap", "silent", "quick"])
            // The floor goes to the bidders as bidfloor: the cheap bid is refused by its own
            // auction (its lurl with 100), before the unit's; it keeps its price and reason.
            #expect(bids.map { $0["outcome"] as? String } == ["lost", "won", "lost", "no_bid", "no_bid"])
            #expect(bids.map { $0["loss_reason"] as? Int } == [102, nil, 100, nil, nil])
            #expect(bids.map { $0["price"] as? Double } == [2, 5, 0.4, nil, nil])
            #expect((bids[2]["message"] as? String)?.contains("floor") == true, "\(bids[2])")

            // Every bid request at once, each told its time less the network buffer (40 ms): an
            // openrtb bidder's own 800 ms by default (shorter than the bidders' 4950 ms), or the
            // 2000 ms one gives itself.
            for name in ["low", "best", "cheap", "silent"] {
                let request = try #require(server.requests("/bid/\(name)").first?.json, "\(name) was asked")
                let tmax = try #require(request["tmax"] as? Int)
                #expect(tmax > 0 && tmax <= 760, "\(name): tmax \(tmax)")
                let imp = (request["imp"] as? [[String: Any]])?.first
                let floor = imp?["bidfloor"] as? Double
                #expect(floor == 1, "the unit's floor is sent: \(String(describing: floor))")
                // In the unit's currency, which the bidder's options do not name.
                #expect(imp?["bidfloorcur"] as? String == "EUR" && request["cur"] as? [String] == ["EUR"])
            }
            let quick = try #require(server.requests("/bid/quick").first?.json?["tmax"] as? Int)
            #expect(quick > 0 && quick <= 1960, "its own 2000 ms less the buffer: tmax \(quick)")

            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/best/win") == 1)
            #expect(server.requests("/t/best/win").first?.query == "price=5")
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/low/loss") == 1)
            #expect(server.requests("/t/low/loss").first?.query == "reason=102&min=5")
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/cheap/loss") == 1)
            #expect(server.requests("/t/cheap/loss").first?.query == "reason=100&min=1")
            #expect(server.requests("/t/best/loss").isEmpty && server.requests("/t/low/win").isEmpty)
            #expect(server.requests("/t/best/bill").isEmpty, "billing waits for the impression")

            let id = try #require(load["ad_id"] as? String)
            #expect(try await Self.post(client, "/v1/ads/\(id)/impression").status == 200)
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/best/bill") == 1)
        }
    }

    @Test func aWinnerWhoseAdCannotLoadLosesAndTheLineItemServes() async throws {
        let server = try await FakeAdServer()
        server.answer(
            "/bid/broken", .init(body: try Self.bid(server, "broken", price: 9, adm: "not a native response")))
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "currency": "EUR", "auction": ["timeout_ms": 5000],
                "bidders": [Self.bidder(server, "broken")],
                "waterfall": [["network": "test", "parameter": "/21775744923/example/native", "cpm": 1]],
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let (_, info) = try await Self.loadNative(client)
            #expect(info["network"] as? String == "test")
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/broken/loss") == 1)
            #expect(server.requests("/t/broken/loss").first?.query == "reason=1&min=")
            #expect(server.requests("/t/broken/win").isEmpty, "no win notice for an ad that did not load")
        }
    }

    /// `name`'s bid with its markup moved to its win notice (OpenRTB 2.6 §6.3.1), which answers
    /// `markup` (its own by default) after `delay`.
    static func servedOnWin(
        _ server: FakeAdServer, _ name: String, price: Double, markup: String? = nil, delay: Duration? = nil
    ) throws -> [UInt8] {
        var response = try #require(
            try JSONSerialization.jsonObject(with: Data(try Self.bid(server, name, price: price))) as? [String: Any])
        var seats = try #require(response["seatbid"] as? [[String: Any]])
        var bids = try #require(seats[0]["bid"] as? [[String: Any]])
        let adm = try #require(bids[0]["adm"] as? String)
        bids[0]["adm"] = nil
        seats[0]["bid"] = bids
        response["seatbid"] = seats
        server.answer("/t/\(name)/win", .init(body: Array((markup ?? adm).utf8), delay: delay))
        return Array(try JSONSerialization.data(withJSONObject: response))
    }

    @Test func aBidServedOnItsWinNoticeLoadsInItsOwnTimeAndIsNeverToldItLostAfter() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        // The auction ends at its deadline (a bidder hangs); the winner's markup then takes 150 ms,
        // which the bid's own deadline, long past, would not have allowed.
        server.answer(
            "/bid/served",
            .init(body: try Self.servedOnWin(server, "served", price: 3, delay: .milliseconds(150))))
        server.answer("/bid/hangs", .init(body: try Self.bid(server, "hangs", price: 9), delay: .seconds(30)))
        server.answer(
            "/bid/garbled", .init(body: try Self.servedOnWin(server, "garbled", price: 4, markup: "not native")))
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "currency": "EUR", "auction": ["timeout_ms": 3000],
                // The hanging bidder's own time outlasts the auction's: the auction ends at its deadline.
                "bidders": [
                    Self.bidder(server, "served"), Self.bidder(server, "hangs", timeoutMilliseconds: 5000),
                    Self.bidder(server, "garbled"),
                ],
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let load = try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native"])
            #expect(load.status == 200, "\(load.json)")
            let bids = try #require((load.json["response_info"] as? [String: Any])?["bids"] as? [[String: Any]])
            #expect(bids.map { $0["outcome"] as? String } == ["won", "timeout", "lost"], "\(bids)")
            // The garbled bid was told it won when its markup was fetched: no loss follows.
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/garbled/win") == 1)
            #expect(server.requests("/t/garbled/loss").isEmpty)
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/served/win") == 1)
            #expect(server.requests("/t/served/loss").isEmpty)
        }
    }

    @Test func aBidderLeftLessThanTheMinimumTmaxIsNotAsked() async throws {
        let server = try await FakeAdServer()
        server.answer("/bid/rushed", .init(body: try Self.bid(server, "rushed", price: 5)))
        // Its own 30 ms, less the unit's 25 for the network: the bidder would be told a tmax of
        // 5 ms at most, which no bidder can answer in.
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "auction": ["network_buffer_ms": 25],
                "bidders": [Self.bidder(server, "rushed", timeoutMilliseconds: 30)],
                "waterfall": [["network": "test", "parameter": "/21775744923/example/native"]],
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let (_, info) = try await Self.loadNative(client)
            #expect(info["network"] as? String == "test")
            let bids = try #require(info["bids"] as? [[String: Any]])
            #expect(bids.map { $0["outcome"] as? String } == ["timeout"], "\(bids)")
            let message = try #require(bids.first?["message"] as? String)
            #expect(
                message == "bidder not asked: it would have a tmax of 5 ms, under the 10 ms a bidder is given at least")
            #expect(server.requests("/bid/rushed").isEmpty, "a bidder without the time to answer is not asked")
        }
    }

    @Test func aBidServedOnItsWinNoticeThatNeverGetsATurnHearsItLost() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid/served", .init(body: try Self.servedOnWin(server, "served", price: 2)))
        server.answer("/bid/best", .init(body: try Self.bid(server, "best", price: 6)))
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "currency": "EUR", "auction": ["timeout_ms": 5000],
                "bidders": [Self.bidder(server, "served"), Self.bidder(server, "best")],
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let load = try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native"])
            #expect(load.status == 200, "\(load.json)")
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/served/loss") == 1)
            #expect(server.requests("/t/served/loss").first?.query == "reason=102&min=6")
            #expect(server.requests("/t/served/win").isEmpty, "its markup was never fetched")
        }
    }

    @Test func aWaterfallLineItemWhoseMarkupFailsHearsItLost() async throws {
        let server = try await FakeAdServer()
        server.answer(
            "/bid/garbled", .init(body: try Self.servedOnWin(server, "garbled", price: 4, markup: "not native")))
        server.answer(
            "/bid/broken", .init(body: try Self.bid(server, "broken", price: 3, adm: "not a native response")))
        let units: [String: Any] = [
            Self.unit: [
                "format": "native", "currency": "EUR",
                "waterfall": [
                    Self.bidder(server, "broken"), Self.bidder(server, "garbled"),
                    ["network": "test", "parameter": "/21775744923/example/native"],
                ],
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let load = try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native"])
            #expect(load.status == 200, "\(load.json)")
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/broken/loss") == 1)
            #expect(server.requests("/t/broken/loss").first?.query == "reason=1&min=")
            #expect(server.requests("/t/broken/win").isEmpty)
            // The garbled bid's markup came from its win notice: that was its notice, no loss follows.
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/garbled/win") == 1)
            #expect(server.requests("/t/garbled/loss").isEmpty)
        }
    }

    @Test func aBidRequestNamesTheSelectedAdaptersThatFailedWithTheirVersionsAndCodesOnly() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid/one", .init(body: try Self.bid(server, "one", price: 2)))
        var bidder = Self.bidder(server, "one")
        // A generous timeout: what is asserted is the request, not time, on a busy machine too.
        bidder["timeout_ms"] = 10_000
        bidder["options"] = [
            "endpoint": server.url("/bid/one"), "currency": "EUR", "signals": ["device-context", "file"],
            "timeout_ms": 5000,
        ]
        let units: [String: Any] = [
            Self.unit: ["format": "native", "currency": "EUR", "auction": ["timeout_ms": 5000], "bidders": [bidder]]
        ]
        let adapters: [[String: Any]] = [
            ["name": "device-context", "recipients": ["demo"]],
            ["name": "file", "recipients": ["demo"], "options": ["path": "/nonexistent/secure-signals.signal"]],
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: adapters, extra: ["ad_units": units]))
        try await daemon.run { client in
            let load = try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native"])
            #expect(load.status == 200, "\(load.json)")
            let request = try #require(server.requests("/bid/one").first?.json)
            let ext = try #require((request["user"] as? [String: Any])?["ext"] as? [String: Any])
            #expect((ext["secure_signals"] as? [[String: Any]])?.map { $0["source"] as? String } == ["device-context"])
            let errors = try #require(ext["secure_signals_errors"] as? [[String: Any]])
            #expect(errors.count == 1, "\(errors)")
            #expect(errors.first?["source"] as? String == "file")
            #expect(errors.first?["adapter_version"] as? String == "1.0.0")
            #expect(errors.first?["sdk_version"] as? String != nil)
            #expect((errors.first?["code"] as? String)?.isEmpty == false)
            #expect(Set(errors.first?.keys.map { $0 } ?? []) == ["source", "adapter_version", "sdk_version", "code"])
        }
    }

    /// What reading a configuration with ad unit `unit` says is wrong; empty when nothing is.
    static func problems(_ unit: [String: Any], in directory: TemporaryDirectory) -> String {
        do {
            _ = try InProcessDaemon.resolve(
                demoConfig(adapters: [], extra: ["ad_units": ["u": unit]]), directory: directory)
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func aBidderMustBeANetworkThatBidsAndPricesMustBeCPMs() throws {
        let directory = try TemporaryDirectory()
        func problems(_ unit: [String: Any]) -> String { Self.problems(unit, in: directory) }
        let testBidder: [String: Any] = ["network": "test", "parameter": "/21775744923/example/native"]
        #expect(problems(["format": "native", "bidders": [testBidder]]).contains("test does not bid"))
        #expect(problems(["format": "native", "waterfall": [testBidder], "floor_cpm": -1]).contains("floor_cpm"))
        var priced = testBidder
        priced["cpm"] = "high"
        #expect(problems(["format": "native", "waterfall": [priced]]).contains("must be a number (a CPM)"))
        #expect(problems(["format": "native", "waterfall": []]).contains("needs a line item (or the unit a bidder)"))
        // The bidders are left 30 ms at least: a tmax of 10 and 20 to read the answer.
        func auction(_ processing: Int, _ buffer: Int) -> String {
            problems([
                "format": "native", "waterfall": [testBidder],
                "auction": ["timeout_ms": 100, "processing_ms": processing, "network_buffer_ms": buffer],
            ])
        }
        #expect(auction(60, 40).contains("must leave the bidders 30 ms at least within timeout_ms"))
        #expect(auction(50, 21).contains("must leave the bidders 30 ms at least within timeout_ms"))
        #expect(auction(50, 20) == "")
        #expect(problems(["format": "native", "waterfall": [testBidder], "floor_cpm": 0.5]) == "")
    }
}

/// An ad unit's blocks: asked of the bidders, and enforced on what they bid anyway.
struct AdQualityRouteTests: MediationScenario {
    /// A bid of `price` from `name` saying `fields` (adomain, cat, attr).
    static func bid(_ server: FakeAdServer, _ name: String, price: Double, _ fields: [String: Any]) throws -> [UInt8] {
        var response = try #require(
            try JSONSerialization.jsonObject(with: Data(try AuctionRouteTests.bid(server, name, price: price)))
                as? [String: Any])
        var seats = try #require(response["seatbid"] as? [[String: Any]])
        var bids = try #require(seats[0]["bid"] as? [[String: Any]])
        bids[0].merge(fields) { $1 }
        seats[0]["bid"] = bids
        response["seatbid"] = seats
        return Array(try JSONSerialization.data(withJSONObject: response))
    }

    @Test func eachBlockDropsItsBidWithItsReasonAndTheRequestAsksForThem() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        let bids: [(String, Double, [String: Any])] = [
            ("advertiser", 9, ["adomain": ["ads.blocked.example"]]),
            ("category", 8, ["adomain": ["fine.example"], "cat": ["IAB25-3"]]),
            ("attribute", 7, ["adomain": ["fine.example"], "attr": [6]]),
            ("anonymous", 6, [:]),
            ("rival", 5, ["adomain": ["fine.example"], "bundle": "com.rival.app"]),
            ("clean", 1, ["adomain": ["fine.example"], "cat": ["IAB1"], "attr": [1]]),
        ]
        for (name, price, fields) in bids {
            server.answer("/bid/\(name)", .init(body: try Self.bid(server, name, price: price, fields)))
        }
        let units: [String: Any] = [
            AuctionRouteTests.unit: [
                "format": "native", "currency": "EUR", "auction": ["timeout_ms": 5000],
                "bidders": bids.map { AuctionRouteTests.bidder(server, $0.0) },
                "blocked_advertisers": ["blocked.example"], "blocked_categories": ["IAB25-3", "IAB26"],
                "category_taxonomy": 1, "blocked_apps": ["com.rival.app"], "blocked_attributes": [6, 7],
                "require_advertiser_domain": true,
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let (_, info) = try await AuctionRouteTests.loadNative(client)
            let answers = try #require(info["bids"] as? [[String: Any]])
            // Each blocked bid keeps its price and the reason its loss notice carried.
            #expect(answers.map { $0["outcome"] as? String } == ["lost", "lost", "lost", "lost", "lost", "won"])
            #expect(answers.map { $0["price"] as? Double } == [9, 8, 7, 6, 5, 1])
            #expect(answers.map { $0["loss_reason"] as? Int } == [205, 209, 210, 205, 206, nil])
            #expect(
                (answers.first?["message"] as? String)?.contains("every bid was blocked by the ad unit (advertiser)")
                    == true, "\(answers)")

            // Asked: badv, bcat with its taxonomy, bapp, and battr on the impression.
            let request = try #require(server.requests("/bid/clean").first?.json)
            #expect(request["badv"] as? [String] == ["blocked.example"])
            #expect(request["bcat"] as? [String] == ["IAB25-3", "IAB26"] && request["cattax"] as? Int == 1)
            #expect(request["bapp"] as? [String] == ["com.rival.app"])
            let native = try #require(((request["imp"] as? [[String: Any]])?.first)?["native"] as? [String: Any])
            #expect(native["battr"] as? [Int] == [6, 7])

            // Enforced: each dropped bid hears why, once; the clean one wins.
            for (name, reason) in [
                ("advertiser", 205), ("category", 209), ("attribute", 210), ("anonymous", 205), ("rival", 206),
            ] {
                #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/\(name)/loss") == 1, "\(name)")
                #expect(server.requests("/t/\(name)/loss").first?.query.hasPrefix("reason=\(reason)&") == true)
                #expect(server.requests("/t/\(name)/win").isEmpty)
            }
            #expect(try await AdSourceRouteTests.settledCount(daemon, server, "/t/clean/win") == 1)
            let metrics = try await metricsText(client)
            #expect(metrics.contains(#"secure_signals_bids_blocked_total{reason="advertiser"} 2"#), "\(metrics)")
            #expect(metrics.contains(#"secure_signals_bids_blocked_total{reason="category"} 1"#))
            #expect(metrics.contains(#"secure_signals_bids_blocked_total{reason="app"} 1"#))
            #expect(metrics.contains(#"secure_signals_bids_blocked_total{reason="creative_attribute"} 1"#))
        }
    }

    @Test func blocksAreCheckedWhenTheConfigurationIsRead() throws {
        let directory = try TemporaryDirectory()
        func problems(_ extra: [String: Any]) -> String {
            var unit: [String: Any] = [
                "format": "native", "waterfall": [["network": "test", "parameter": "/21775744923/example/native"]],
            ]
            unit.merge(extra) { $1 }
            return AuctionRouteTests.problems(unit, in: directory)
        }
        #expect(problems(["blocked_advertisers": [""]]).contains("must list advertiser domains, none empty"))
        #expect(problems(["blocked_attributes": [0]]).contains("creative attribute ids"))
        #expect(problems(["blocked_advertisers": ["https://x.example"]]).contains("must list bare domains"))
        #expect(problems(["category_taxonomy": 0]).contains("cattax"))
        #expect(problems(["blocked_categories": ["IAB1"], "require_advertiser_domain": true]) == "")
    }
}
