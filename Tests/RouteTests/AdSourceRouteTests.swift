import Client
import Foundation
import TestSupport
import Testing

/// OpenRTB and VAST waterfalls through the routes, in-process, against real local bidders and
/// ad servers: signals in the bid request, each tracker fired once, rewarded video end to end.
struct AdSourceRouteTests: MediationScenario {
    /// A TC string granting vendor 755 everything: TCF v2.3, made today.
    static let tcString = ConsentStrings.TC.consentingToEverything(vendor: 755).string

    static let nativeUnit = "/openrtb/native"
    static let rewardedUnit = "/vast/rewarded"

    /// Waits until `path` has been requested `count` times and the daemon's tracker queue has
    /// nothing more to do, and says how many times it was: a second firing would show.
    static func settledCount(
        _ daemon: InProcessDaemon, _ server: FakeAdServer, _ path: String, atLeast count: Int = 1
    ) async throws -> Int {
        _ = try await eventually { server.requests(path).count >= count ? true : nil }
        await daemon.trackersIdle()
        return server.requests(path).count
    }

    /// The startio sample's Native 1.2 markup, its images and trackers pointed at `server` (a
    /// test reaches no host but its own), with a click tracker.
    /// The IAB's VAST 4.2 inline linear sample, its trackers and media pointed at `server`.
    static func inlineVAST(_ server: FakeAdServer) throws -> String {
        String(decoding: try FakeAdServer.sample("vast/vast42-iab-inline-linear.xml"), as: UTF8.self)
            .replacingOccurrences(of: "https://example.com", with: server.url(""))
            .replacingOccurrences(of: "http://example.com", with: server.url(""))
    }

    static func nativeBid(_ server: FakeAdServer, price: Double) throws -> [UInt8] {
        let sample = String(
            decoding: try FakeAdServer.sample("native/native12-response-startio-wrapped-native-key.json"), as: UTF8.self
        )
        var adm = try #require(
            try JSONSerialization.jsonObject(
                with: Data(sample.replacingOccurrences(of: "https://img.image.com", with: server.url("")).utf8))
                as? [String: Any])
        var native = try #require(adm["native"] as? [String: Any])
        var assets = try #require(native["assets"] as? [[String: Any]])
        assets.append(["id": 2, "img": ["type": 3, "url": server.url("/img/second.jpg"), "w": 320, "h": 250]])
        native["assets"] = assets
        native["imptrackers"] = [server.url("/t/imp")]
        native["eventtrackers"] = [["event": 1, "method": 1, "url": server.url("/t/event")]]
        native["link"] = ["url": "https://click.url.com", "clicktrackers": [server.url("/t/click")]]
        adm["native"] = native
        let response: [String: Any] = [
            "id": "any", "cur": "EUR",
            "seatbid": [
                [
                    "seat": "s1",
                    "bid": [
                        [
                            "id": "b1", "impid": "1", "price": price, "mtype": 4,
                            "adm": String(decoding: try JSONSerialization.data(withJSONObject: adm), as: UTF8.self),
                            // A won bid's loss reason is 0, "Bid Won" (OpenRTB 2.5 §5.25).
                            "nurl": server.url(
                                "/t/win?price=${AUCTION_PRICE}&cur=${AUCTION_CURRENCY}&loss=${AUCTION_LOSS}"),
                            "burl": server.url("/t/bill?price=${AUCTION_PRICE}&loss=${AUCTION_LOSS}"),
                        ]
                    ],
                ]
            ],
        ]
        return Array(try JSONSerialization.data(withJSONObject: response))
    }

    /// A VAST wrapper at `name` on `server`, wrapping `target`, with its own trackers.
    static func wrapper(_ server: FakeAdServer, _ name: String, wraps target: String) -> FakeAdServer.Answer {
        let xml = """
            <VAST version="4.2"><Ad id="\(name)"><Wrapper>
            <AdSystem>loop</AdSystem>
            <VASTAdTagURI><![CDATA[\(server.url("/vast/\(target)"))]]></VASTAdTagURI>
            <Error><![CDATA[\(server.url("/t/error-\(name)?code=[ERRORCODE]"))]]></Error>
            <Impression><![CDATA[\(server.url("/t/wrapper-imp-\(name)"))]]></Impression>
            </Wrapper></Ad></VAST>
            """
        return .init(body: Array(xml.utf8), contentType: "application/xml")
    }

    @Test func anOpenRTBNativeWaterfallCarriesSealedSignalsAndFiresEachTrackerOnce() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/broken", .init(status: 500))
        server.answer("/bid", .init(body: try Self.nativeBid(server, price: 2.5)))
        let units: [String: Any] = [
            Self.nativeUnit: [
                "format": "native", "currency": "EUR",
                "waterfall": [
                    // Generous: what is asserted is the request, its answers and trackers, not time.
                    [
                        "network": "openrtb", "parameter": "tag-a", "timeout_ms": 10_000,
                        "options": ["endpoint": server.url("/broken"), "timeout_ms": 8000],
                    ],
                    [
                        "network": "openrtb", "parameter": "tag-b", "timeout_ms": 10_000,
                        "options": [
                            "endpoint": server.url("/bid"), "signals": ["device-context"], "timeout_ms": 8000,
                            "currency": "EUR",
                        ],
                    ],
                ],
            ]
        ]
        let networks: [String: Any] = ["openrtb": ["setup": ["app": ["bundle": "tv.example.player"]]]]
        let daemon = try await InProcessDaemon(
            config: demoConfig(
                adapters: [["name": "device-context", "recipients": ["demo"]]],
                extra: ["ad_units": units, "ad_networks": networks]))
        try await daemon.run { client in
            let privacy = try JSONSerialization.data(withJSONObject: [
                "privacy": [
                    "limit_ad_tracking": false, "tcf_consent": Self.tcString,
                    "gdpr_applies": true,
                ]
            ])
            #expect(try await client.request(.PUT, "/v1/privacy", json: privacy).status == 200)

            let load = try await Self.post(
                client, "/v1/ads", ["ad_unit": Self.nativeUnit, "format": "native"])
            #expect(load.status == 200, "\(load.json)")
            let id = try #require(load.json["ad_id"] as? String)
            #expect((load.json["native"] as? [String: Any])?["headline"] as? String == "Title")
            // Two main images sent, one kept: the load did not ask for multiple_images.
            #expect(((load.json["native"] as? [String: Any])?["images"] as? [Any])?.count == 1)
            let attempts = try #require((load.json["response_info"] as? [String: Any])?["attempts"] as? [[String: Any]])
            #expect(attempts.map { $0["outcome"] as? String } == ["error", "filled"])
            #expect(attempts.first?["message"] as? String == "the bidder answered HTTP 500")

            // The bid request: the consent, and the device's signal sealed for the bidder, bound to it.
            let bidRequest = try #require(server.requests("/bid").first?.json)
            let user = try #require(bidRequest["user"] as? [String: Any])
            #expect(user["consent"] as? String == Self.tcString)
            #expect((bidRequest["regs"] as? [String: Any])?["gdpr"] as? Int == 1)
            let attached = try #require(((user["ext"] as? [String: Any])?["secure_signals"] as? [[String: Any]])?.first)
            #expect(
                attached["source"] as? String == "device-context" && attached["adapter_version"] as? String == "1.0.0")
            #expect(attached["key_id"] as? Int == 1 && attached["sdk_version"] as? String != nil)
            let payload = try DemoRecipient(in: daemon.directory).open(try #require(attached["data"] as? String))
            #expect(payload["adapter"] as? String == "device-context")
            #expect(payload["request_id"] as? String == bidRequest["id"] as? String)

            // The win notice at load with the price; the billing notice and the pixels at the impression.
            #expect(try await Self.settledCount(daemon, server, "/t/win") == 1)
            #expect(server.requests("/t/win").first?.query == "price=2.5&cur=EUR&loss=0")
            #expect(server.requests("/t/bill").isEmpty && server.requests("/t/imp").isEmpty)
            for _ in 0..<2 {
                #expect(try await Self.post(client, "/v1/ads/\(id)/impression").status == 200)
                #expect(try await Self.post(client, "/v1/ads/\(id)/click").status == 200)
            }
            for path in ["/t/imp", "/t/event", "/t/bill", "/t/click"] {
                #expect(try await Self.settledCount(daemon, server, path) == 1, "\(path)")
            }
            #expect(server.requests("/t/bill").first?.query == "price=2.5&loss=0")
            let metrics = try await metricsText(client)
            #expect(metrics.contains(#"secure_signals_trackers_total{kind="impression",outcome="fired"} 3"#))
            #expect(metrics.contains(#"secure_signals_trackers_total{kind="click",outcome="fired"} 1"#))
            #expect(metrics.contains(#"secure_signals_trackers_total{kind="win",outcome="fired"} 1"#))
        }
    }

    @Test func aRewardedVASTWaterfallPlaysFiresItsTrackersAndRewardsBeforeTheDismiss() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/vast/a.xml", Self.wrapper(server, "a", wraps: "b.xml"))
        server.answer("/vast/b.xml", Self.wrapper(server, "b", wraps: "a.xml"))
        let inline = try Self.inlineVAST(server)
        server.answer("/vast/inline.xml", .init(body: Array(inline.utf8), contentType: "application/xml"))
        let units: [String: Any] = [
            Self.rewardedUnit: [
                "format": "rewarded",
                "waterfall": [
                    ["network": "vast", "parameter": server.url("/vast/a.xml?cb=[CACHEBUSTING]")],
                    [
                        "network": "vast", "parameter": server.url("/vast/inline.xml"),
                        "options": ["reward_type": "coins", "reward_amount": 5],
                    ],
                ],
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let events = daemon.events(adUnit: Self.rewardedUnit)

            let load = try await Self.post(
                client, "/v1/ads", ["ad_unit": Self.rewardedUnit, "format": "rewarded"])
            #expect(load.status == 200, "\(load.json)")
            let id = try #require(load.json["ad_id"] as? String)
            let video = try #require(load.json["video"] as? [String: Any])
            #expect(
                video["media_url"] as? String
                    == "https://iab-publicfiles.s3.amazonaws.com/vast/VAST-4.0-Short-Intro.mp4")
            #expect(video["mime_type"] as? String == "video/mp4" && video["duration_ms"] as? Int == 16_000)
            #expect(video["click_through"] as? String == "https://iabtechlab.com")
            #expect((load.json["reward"] as? [String: Any])?["amount"] as? Double == 5)
            let attempts = try #require((load.json["response_info"] as? [String: Any])?["attempts"] as? [[String: Any]])
            #expect((attempts.first?["message"] as? String)?.hasPrefix("VAST error 302") == true)
            // The tag's query (keys, ids) is never shown to apps: the parameter without it.
            #expect(attempts.first?["parameter"] as? String == server.url("/vast/a.xml"))
            #expect(server.requests("/vast/a.xml").first?.query.hasPrefix("cb=") == true)
            #expect(server.requests("/vast/a.xml").first?.query.contains("[CACHEBUSTING]") == false)
            // The loop's error URLs, each once, with the wrapper-limit code.
            for wrapper in ["a", "b"] {
                #expect(try await Self.settledCount(daemon, server, "/t/error-\(wrapper)") == 1)
                #expect(server.requests("/t/error-\(wrapper)").first?.query == "code=302")
            }

            #expect(try await Self.post(client, "/v1/ads/\(id)/show").status == 200)
            #expect(try await Self.settledCount(daemon, server, "/track/impression") == 1)
            let steps = ["start", "first_quartile", "midpoint", "third_quartile", "complete", "complete"]
            for step in steps {
                let reply = try await Self.post(client, "/v1/ads/\(id)/progress", ["event": step])
                #expect(reply.status == 200, "\(step): \(reply.json)")
            }
            for tracker in ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "progress-10"] {
                #expect(try await Self.settledCount(daemon, server, "/tracking/\(tracker)") == 1, "\(tracker)")
            }
            #expect(try await Self.post(client, "/v1/ads/\(id)/dismiss").status == 200)
            let seen = try await Self.collect(events, timeout: .seconds(10)) { seen in
                seen.contains { $0.0 == "dismissed" }
            }
            let names = seen.map(\.0)
            let reward = try #require(names.firstIndex(of: "reward_earned"))
            let dismissed = try #require(names.firstIndex(of: "dismissed"))
            #expect(reward < dismissed)
            #expect(names.filter { $0 == "reward_earned" }.count == 1)
            #expect(server.requests("/error").isEmpty, "the served ad's own error URL stays quiet")
        }
    }

    @Test func aPlayerThatReportsOnlyStartAndCompleteStillFiresEveryQuartileOnceWithMacrosFilled() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        let inline = try Self.inlineVAST(server)
            .replacingOccurrences(of: "/track/impression", with: "/track/impression?cb=[CACHEBUSTING]&at=[TIMESTAMP]")
            .replacingOccurrences(of: "/error]]>", with: "/error?code=[ERRORCODE]]]>")
        server.answer("/vast/inline.xml", .init(body: Array(inline.utf8), contentType: "application/xml"))
        let units: [String: Any] = [
            Self.rewardedUnit: [
                "format": "rewarded", "waterfall": [["network": "vast", "parameter": server.url("/vast/inline.xml")]],
            ]
        ]
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: [], extra: ["ad_units": units]))
        try await daemon.run { client in
            let load = try await Self.post(
                client, "/v1/ads", ["ad_unit": Self.rewardedUnit, "format": "rewarded"])
            let id = try #require(load.json["ad_id"] as? String, "\(load.json)")
            #expect(try await Self.post(client, "/v1/ads/\(id)/show").status == 200)
            for step in ["start", "complete", "midpoint"] {
                #expect(
                    try await Self.post(client, "/v1/ads/\(id)/progress", ["event": step]).status == 200)
            }
            for tracker in ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "progress-10"] {
                #expect(try await Self.settledCount(daemon, server, "/tracking/\(tracker)") == 1, "\(tracker)")
            }
            let impression = try #require(server.requests("/track/impression").first)
            #expect(!impression.query.contains("[") && impression.query.hasPrefix("cb="), "\(impression.query)")

            // The player cannot go on: the ad's own Error URL goes once, with the code.
            let bad = try await Self.post(client, "/v1/ads/\(id)/error", ["code": 42])
            #expect(bad.status == 400 && Self.errorCode(bad.json) == "invalid_request")
            let failed = try await Self.post(client, "/v1/ads/\(id)/error", ["code": 405])
            #expect(failed.status == 200 && failed.json["recorded"] as? Bool == true)
            let again = try await Self.post(client, "/v1/ads/\(id)/error", ["code": 405])
            #expect(again.json["recorded"] as? Bool == false)
            #expect(try await Self.settledCount(daemon, server, "/error") == 1)
            #expect(server.requests("/error").first?.query == "code=405")
        }
    }
}
