import Client
import Foundation
import TestSupport
import Testing

/// The mediation half of the socket API, in-process: loads and the waterfall, each ad's
/// lifecycle and its trackers (against a real local HTTP server), events, expiry and retries
/// on the daemon's clock.
struct AdRouteTests: MediationScenario {
    static func start(units: [String: Any], networks: [String: Any] = [:]) async throws -> InProcessDaemon {
        try await InProcessDaemon(config: config(units: units, networks: networks))
    }

    static func advance(_ client: DaemonClient, milliseconds: Int) async throws {
        #expect(try await post(client, "/testbed/clock", ["advance_ms": milliseconds]).status == 200)
    }

    @Test func aRewardedAdShowsOnceAndItsRewardAlwaysPrecedesItsDismiss() async throws {
        let daemon = try await Self.start(units: [
            Self.rewarded: Self.unit(
                "rewarded", [Self.testItem(Self.rewarded, ["behavior": "dismiss_first"])], extra: ["preload": true])
        ])
        try await daemon.run { client in
            let events = daemon.events(adUnit: Self.rewarded)
            let load = try await Self.post(
                client, "/v1/ads", ["ad_unit": Self.rewarded, "format": "rewarded", "ssv": ["user_id": "player-9"]])
            #expect(load.status == 200)
            let id = try #require(load.json["ad_id"] as? String)
            #expect((load.json["reward"] as? [String: Any])?["type"] as? String == "coins")
            #expect(load.json["expires_at"] as? String != nil && load.json["response_info"] != nil)

            #expect(try await Self.post(client, "/v1/ads/\(id)/show").status == 200)
            let again = try await Self.post(client, "/v1/ads/\(id)/show")
            #expect(again.status == 409 && Self.errorCode(again.json) == "ad_already_used")
            #expect(try await Self.post(client, "/v1/ads/\(id)/progress", ["event": "start"]).status == 200)
            let repeated = try await Self.post(client, "/v1/ads/\(id)/progress", ["event": "start"])
            #expect(repeated.json["reason"] as? String == "duplicate", "an event reported before")
            // The test network reports the dismiss before the reward here.
            #expect(try await Self.post(client, "/v1/ads/\(id)/progress", ["event": "complete"]).status == 200)
            #expect(try await Self.post(client, "/v1/ads/\(id)/dismiss").json["reason"] as? String == "duplicate")
            // After the dismiss nothing more is recorded, and the answer says why, not "duplicate".
            for (path, body) in [("progress", ["event": "third_quartile"]), ("error", ["code": 405] as [String: Any])] {
                let late = try await Self.post(client, "/v1/ads/\(id)/\(path)", body)
                #expect(late.status == 409 && Self.errorCode(late.json) == "ad_already_dismissed", "\(path)")
            }

            // Up to the preload after the dismiss, or 10 s.
            let seen = try await Self.collect(events, timeout: .seconds(10)) { $0.count > 1 && $0.last?.0 == "loaded" }
            #expect(
                seen.map(\.0) == [
                    "loaded", "will_present", "impression", "paid", "video_start", "video_complete", "reward_earned",
                    "dismissed", "loaded",
                ])
            let reward = try #require(seen.first { $0.0 == "reward_earned" }?.1)
            #expect((reward["ssv"] as? [String: Any])?["user_id"] as? String == "player-9")
            #expect((reward["ssv"] as? [String: Any])?["custom_data"] == nil, "only what was set")
            #expect(reward["ad_id"] as? String == id && reward["ad_unit"] as? String == Self.rewarded)
            #expect(seen.last?.1["ad_id"] as? String != id, "the next ad was preloaded")
            let metrics = try await metricsText(client)
            #expect(
                metrics.contains(
                    #"secure_signals_ad_events_total{ad_unit="/6499/example/rewarded",event="reward_earned"} 1"#))
            #expect(
                metrics.contains(#"secure_signals_ad_events_total{ad_unit="/6499/example/rewarded",event="loaded"} 2"#))
            #expect(metrics.contains(#"secure_signals_ad_load_seconds_count{ad_unit="/6499/example/rewarded"} 2"#))
        }
    }

    @Test func theWaterfallReportsEveryAttemptAndFailuresNameTheirCode() async throws {
        let daemon = try await Self.start(units: [
            "mixed": Self.unit(
                "native",
                [
                    Self.testItem(Self.native, ["behavior": "error"]),
                    Self.testItem(Self.native, ["behavior": "hang"], timeout: 200), Self.testItem(Self.native),
                ]),
            "empty": Self.unit("native", [Self.testItem(Self.native, ["behavior": "no_fill"])]),
        ])
        try await daemon.run { client in
            let filled = try await Self.post(client, "/v1/ads", ["ad_unit": "mixed", "format": "native"])
            #expect(filled.status == 200)
            let info = try #require(filled.json["response_info"] as? [String: Any])
            let attempts = try #require(info["attempts"] as? [[String: Any]])
            try #require(attempts.map { $0["outcome"] as? String } == ["error", "timeout", "filled"])
            #expect((attempts[1]["latency_ms"] as? Double ?? 0) >= 200)
            #expect((filled.json["native"] as? [String: Any])?["headline"] != nil)

            let empty = try await Self.post(client, "/v1/ads", ["ad_unit": "empty", "format": "native"])
            #expect(empty.status == 404 && Self.errorCode(empty.json) == "no_fill")
            #expect(((empty.json["response_info"] as? [String: Any])?["attempts"] as? [Any])?.count == 1)

            let unknown = try await Self.post(client, "/v1/ads", ["ad_unit": "nope", "format": "native"])
            #expect(unknown.status == 400 && Self.errorCode(unknown.json) == "invalid_request")
            let badField = try await Self.post(
                client, "/v1/ads", ["ad_unit": "mixed", "format": "native", "colour": 1])
            #expect(badField.status == 400 && Self.errorCode(badField.json) == "invalid_request")
            let badRatio = try await Self.post(
                client, "/v1/ads",
                ["ad_unit": "mixed", "format": "native", "options": ["media_aspect_ratio": "square"]])
            #expect(
                ((badRatio.json["error"] as? [String: Any])?["message"] as? String)?.contains("media_aspect_ratio")
                    == true)
        }
    }

    @Test func concurrentLoadsJoinAndAReadyAdIsHandedOutUntilForced() async throws {
        let daemon = try await Self.start(units: [
            Self.native: Self.unit("native", [Self.testItem(Self.native, ["delay_ms": 300])])
        ])
        try await daemon.run { client in
            async let first = Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            async let second = Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            let (a, b) = try await (first, second)
            let id = try #require(a.json["ad_id"] as? String)
            #expect(b.json["ad_id"] as? String == id, "the second load joined the first")
            let ready = try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            #expect(ready.json["ad_id"] as? String == id)
            let forced = try await Self.post(
                client, "/v1/ads", ["ad_unit": Self.native, "format": "native", "force": true])
            #expect(forced.json["ad_id"] as? String != id)
        }
    }

    @Test func impressionsAndClicksCountOnceAndFireTheirTrackersOnce() async throws {
        let server = try await FakeAdServer()
        server.answer("/imp", .init(body: Array("ok".utf8), contentType: "text/plain"))
        server.answer("/clk", .init(body: Array("ok".utf8), contentType: "text/plain"))
        let trackers: [String: Any] = [
            "impression_tracker": server.url("/imp"), "click_tracker": server.url("/clk"), "deep_link": "myapp://offer",
        ]
        let daemon = try await Self.start(units: [
            "tracked": Self.unit("native", [Self.testItem(Self.native, trackers)])
        ])
        try await daemon.run { client in
            let id = try #require(
                try await Self.post(
                    client, "/v1/ads",
                    ["ad_unit": "tracked", "format": "native", "options": ["openable_schemes": ["myapp"]]]
                ).json["ad_id"]
                    as? String)
            let first = try await Self.post(client, "/v1/ads/\(id)/impression")
            let second = try await Self.post(client, "/v1/ads/\(id)/impression")
            #expect(first.json["recorded"] as? Bool == true)
            #expect(second.json["recorded"] as? Bool == false && second.json["reason"] as? String == "duplicate")
            let click = try await Self.post(client, "/v1/ads/\(id)/click", ["asset": "headline"])
            let reclick = try await Self.post(client, "/v1/ads/\(id)/click", ["asset": "headline"])
            #expect(click.json["recorded"] as? Bool == true && reclick.json["recorded"] as? Bool == false)
            let action = try #require(click.json["action"] as? [String: Any])
            #expect(action["type"] as? String == "deep_link" && action["url"] as? String == "myapp://offer")
            _ = try await eventually {
                server.requests("/imp").count >= 1 && server.requests("/clk").count >= 1 ? true : nil
            }
            await daemon.trackersIdle()
            #expect(server.requests("/imp").count == 1 && server.requests("/clk").count == 1, "each tracker fired once")

            let missing = try await Self.post(client, "/v1/ads/no-such-ad/impression")
            #expect(missing.status == 404 && Self.errorCode(missing.json) == "unknown_ad")
            let notShown = try await Self.post(client, "/v1/ads/\(id)/progress", ["event": "start"])
            #expect(notShown.status == 409 && Self.errorCode(notShown.json) == "wrong_format")
        }
    }

    @Test func aNetworkThatTracksItselfGetsNoTrackersFromTheDaemon() async throws {
        let server = try await FakeAdServer()
        let daemon = try await Self.start(
            units: [
                "self": Self.unit("native", [Self.testItem(Self.native, ["impression_tracker": server.url("/imp")])])
            ],
            networks: ["test": ["setup": ["tracks_itself": true]]])
        try await daemon.run { client in
            let id = try #require(
                try await Self.post(client, "/v1/ads", ["ad_unit": "self", "format": "native"]).json["ad_id"] as? String
            )
            #expect(try await Self.post(client, "/v1/ads/\(id)/impression").json["recorded"] as? Bool == true)
            await daemon.trackersIdle()
            #expect(server.requests("/imp").count == 0)
        }
    }

    @Test func houseAdsComeFromFilesWithTheirImagesFetchedByTheDaemon() async throws {
        let server = try await FakeAdServer()
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        server.answer("/banner.png", .init(body: png, contentType: "image/png"))
        let house = try TemporaryDirectory()
        let ad: [String: Any] = [
            "format": "native", "click_url": "https://example.com/spring",
            "native": [
                "headline": "Spring sale", "body": "All week", "call_to_action": "Shop",
                "images": [["url": server.url("/banner.png"), "width": 1200, "height": 627]],
            ],
        ]
        try JSONSerialization.data(withJSONObject: ad).write(to: house.url.appendingPathComponent("spring.json"))
        let daemon = try await Self.start(
            units: [
                "house-unit": Self.unit(
                    "native",
                    [
                        Self.testItem(Self.native, ["behavior": "no_fill"]),
                        ["network": "house", "parameter": "*"],
                    ])
            ], networks: ["house": ["setup": ["directory": house.url.path]]])
        try await daemon.run { client in
            let loaded = try await Self.post(client, "/v1/ads", ["ad_unit": "house-unit", "format": "native"])
            #expect(loaded.status == 200, "\(loaded.json)")
            let native = try #require(loaded.json["native"] as? [String: Any])
            #expect(native["headline"] as? String == "Spring sale")
            #expect(native["body"] as? String == "All week" && native["call_to_action"] as? String == "Shop")
            let image = try #require((native["images"] as? [[String: Any]])?.first)
            #expect(image["data"] as? String == Data(png).base64EncodedString(), "the daemon fetched the image")
            #expect(image["width"] as? Int == 1200 && image["height"] as? Int == 627)
            let id = try #require(loaded.json["ad_id"] as? String)
            let click = try await Self.post(client, "/v1/ads/\(id)/click")
            #expect((click.json["action"] as? [String: Any])?["url"] as? String == "https://example.com/spring")
            let urlsOnly = try await Self.post(
                client, "/v1/ads",
                [
                    "ad_unit": "house-unit", "format": "native", "force": true,
                    "options": ["disable_image_loading": true],
                ])
            let plain = try #require(
                ((urlsOnly.json["native"] as? [String: Any])?["images"] as? [[String: Any]])?.first)
            #expect(
                plain["data"] == nil && plain["url"] as? String == server.url("/banner.png")
                    && plain["scale"] as? Double == 1)
            #expect(server.requests("/banner.png").count == 1)
        }
    }

    @Test func nativePreferencesAndCustomClickHandlingReachTheAd() async throws {
        let daemon = try await Self.start(units: [
            Self.native: Self.unit("native", [Self.testItem(Self.native)]),
            "/21775744923/example/native-backfill": Self.unit(
                "native", [Self.testItem("/21775744923/example/native-backfill")]),
        ])
        try await daemon.run { client in
            let portrait = try await Self.post(
                client, "/v1/ads",
                [
                    "ad_unit": Self.native, "format": "native",
                    "options": [
                        "media_aspect_ratio": "portrait", "multiple_images": true, "custom_click_handling": true,
                    ],
                ])
            let native = try #require(portrait.json["native"] as? [String: Any])
            let images = try #require(native["images"] as? [[String: Any]])
            #expect(images.count == 2 && (images[0]["url"] as? String)?.hasSuffix("portrait.png") == true)
            #expect(images.allSatisfy { ($0["data"] as? String)?.isEmpty == false }, "image bytes come with the ad")
            #expect((native["media_aspect_ratio"] as? Double ?? 1) < 1)
            let id = try #require(portrait.json["ad_id"] as? String)
            let click = try await Self.post(client, "/v1/ads/\(id)/click", ["asset": "call_to_action"])
            #expect((click.json["action"] as? [String: Any])?["type"] as? String == "custom")
            let backfill = try await Self.post(
                client, "/v1/ads", ["ad_unit": "/21775744923/example/native-backfill", "format": "native"])
            let choices = try #require((backfill.json["native"] as? [String: Any])?["ad_choices"] as? [String: Any])
            #expect(choices["url"] as? String != nil && choices["icon"] != nil)
        }
    }

    @Test func adNetworksAreListedAmongTheAdapters() async throws {
        let daemon = try await Self.start(units: [Self.native: Self.unit("native", [Self.testItem(Self.native)])])
        try await daemon.run { client in
            let network = try #require(try await client.adapters().first { $0.name == "test" })
            #expect(network.kind == "ad_network" && network.state == .ready && network.sdkVersion != nil)
            let custom = try await Self.post(
                client, "/v1/ads", ["ad_unit": Self.native, "format": "native", "format_ids": ["10063170"]])
            let assets = try #require((custom.json["custom_native"] as? [String: Any])?["assets"] as? [String: Any])
            #expect(Set(assets.keys) == ["Headline", "MainImage", "Caption"])
            #expect((assets["Headline"] as? [String: Any])?["type"] as? String == "text")
            #expect((assets["MainImage"] as? [String: Any])?["type"] as? String == "image")
            let media = try #require((custom.json["custom_native"] as? [String: Any])?["media"] as? [String: Any])
            #expect(media["has_video_content"] as? Bool == false)
            #expect(
                (media["image"] as? [String: Any])?["url"] as? String == (assets["MainImage"] as? [String: Any])?["url"]
                    as? String)
        }
    }

    @Test func aNetworkThatCompletesTwiceMakesOneAd() async throws {
        let daemon = try await Self.start(units: [
            "twice": Self.unit("rewarded", [Self.testItem(Self.rewarded, ["behavior": "complete_twice"])])
        ])
        try await daemon.run { client in
            let events = daemon.events(adUnit: "twice")
            let load = try await Self.post(client, "/v1/ads", ["ad_unit": "twice", "format": "rewarded"])
            #expect(load.status == 200)
            let id = try #require(load.json["ad_id"] as? String)
            #expect(try await Self.post(client, "/v1/ads/\(id)/show").status == 200)
            let seen = try await Self.collect(events, timeout: .seconds(10)) { $0.last?.0 == "will_present" }
            #expect(seen.map(\.0) == ["loaded", "will_present"], "one completion, one ad, one loaded event")
        }
    }

    @Test func adsExpireOnTheDaemonsClock() async throws {
        let daemon = try await Self.start(units: [
            "short": Self.unit("native", [Self.testItem(Self.native)], extra: ["expiry_ms": 60_000])
        ])
        try await daemon.run { client in
            let id = try #require(
                try await Self.post(client, "/v1/ads", ["ad_unit": "short", "format": "native"]).json["ad_id"]
                    as? String)
            // 55 s, not 59: the real clock runs too, seconds of it on a busy machine.
            try await Self.advance(client, milliseconds: 55_000)
            #expect(try await client.request(.GET, "/v1/ads/\(id)").status == 200)
            try await Self.advance(client, milliseconds: 5_000)
            let expired = try await Self.post(client, "/v1/ads/\(id)/impression")
            #expect(expired.status == 410 && Self.errorCode(expired.json) == "ad_expired")
            let next = try await Self.post(client, "/v1/ads", ["ad_unit": "short", "format": "native"])
            #expect(next.json["ad_id"] as? String != id, "an expired ad is not handed out")
        }
    }

    @Test func requestBodiesRefuseUnknownKeysAtEveryDepthNamingThem() async throws {
        let daemon = try await Self.start(units: [
            "u": Self.unit("native", [Self.testItem(Self.native)])
        ])
        try await daemon.run { client in
            let cases: [(String, [String: Any], String)] = [
                (
                    "/v1/ads", ["ad_unit": "u", "format": "native", "options": ["multiple_image": true]],
                    "options.multiple_image: unknown key"
                ),
                ("/v1/ads", ["ad_unit": "u", "format": "rewarded", "ssv": ["user": "x"]], "ssv.user: unknown key"),
                (
                    "/v1/ads", ["ad_unit": "u", "format": "native", "options": ["media_aspect_ratio": "wide"]],
                    #"options.media_aspect_ratio: must be any, landscape or portrait, not "wide""#
                ),
                (
                    "/v1/ads", ["ad_unit": "u", "format": "rewarded", "format_ids": ["f"]],
                    "format_ids: only applies to native loads"
                ),
                (
                    "/v1/signals", ["request_id": "r", "timeout_ms": 0],
                    "timeout_ms: must be between 1 and 10000, not 0"
                ),
            ]
            for (path, body, message) in cases {
                let reply = try await Self.post(client, path, body)
                #expect(reply.status == 400, "\(body)")
                let error = reply.json["error"] as? [String: Any]
                #expect(error?["code"] as? String == "invalid_request" && error?["message"] as? String == message)
            }
            let privacy = try JSONSerialization.data(withJSONObject: [
                "privacy": ["limit_ad_tracking": false, "lat": 1]
            ])
            let refused = try await client.request(.PUT, "/v1/privacy", json: privacy)
            #expect(refused.status == 400 && refused.apiError?.message == "privacy.lat: unknown key")
        }
    }

    @Test func failedLoadsRetryOnTheBackoffSchedule() async throws {
        // The clock stopped: only the test moves it, so the schedule reads exactly as it was made.
        let daemon = try await InProcessDaemon(
            config: Self.config(units: [
                "dry": Self.unit(
                    "native", [Self.testItem(Self.native, ["behavior": "no_fill"])], extra: ["max_retries": 2])
            ]), clockRuns: false)
        try await daemon.run { client in
            let events = daemon.events(adUnit: "dry")
            let counter = FailureCounter()
            let counting = Task {
                for try await event in events where event.name == "failed_to_load" { await counter.add() }
            }
            defer { counting.cancel() }
            #expect(try await Self.post(client, "/v1/ads", ["ad_unit": "dry", "format": "native"]).status == 404)
            _ = try await eventually { await counter.count == 1 ? true : nil }
            /// The unit's next retry as `GET /v1/ad_units` shows it, in ms; nil when none waits.
            func nextRetry() async throws -> Int? {
                let reply = try await client.request(.GET, "/v1/ad_units")
                let units = try #require(
                    (try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["ad_units"]
                        as? [[String: Any]])
                return units.first { $0["id"] as? String == "dry" }?["next_retry_ms"] as? Int
            }
            // Retry 1 after 2 s, retry 2 after 4 s more, then no more (max_retries 2).
            for (retry, delay) in [(1, 2_000), (2, 4_000)] {
                #expect(try await nextRetry() == delay, "retry \(retry) waits \(delay) ms")
                try await Self.advance(client, milliseconds: delay - 1)
                #expect(try await nextRetry() == 1, "retry \(retry) waits its whole delay")
                #expect(await counter.count == retry)
                try await Self.advance(client, milliseconds: 1)
                _ = try await eventually { await counter.count == retry + 1 ? true : nil }
            }
            #expect(try await nextRetry() == nil, "no third retry is scheduled")
            try await Self.advance(client, milliseconds: 120_000)
            #expect(await counter.count == 3)
        }
    }
}
