import Adapters
import Foundation
import Logging
import Mediation
import SecureSignals
import SharedTypes
import StateStore
import TestSupport
import Testing
import Timing

@testable import Daemon

/// The `openrtb` network against a real local bidder answering every file of
/// `../shared/samples/openrtb` and `native` (and broken variants): each loads with the right
/// assets and trackers, or fails with the right code and a message naming what was wrong.
struct OpenRTBSampleTests {
    /// An `openrtb` network set up with the daemon's HTTP client and tracker queue.
    struct Bidder {
        let server: FakeAdServer
        let network: OpenRTBAdNetwork
        /// The notices' queue: `idle()` says when it has nothing more to send.
        let trackers: TrackerQueue
        /// Where its bids are settled.
        let bids: BidLedger

        init(setup: [String: JSONValue] = [:]) async throws {
            server = try await FakeAdServer()
            let fetcher = HTTPAdFetcher()
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            trackers = TrackerQueue(
                fetcher: fetcher, outbox: SQLiteTrackerOutbox(StateDatabase()),
                clock: WallClock(clock: ContinuousClock()), settings: .init(retryDelay: .milliseconds(20)),
                logger: logger
            ).started()
            let services = AdNetworkServices(fetcher: fetcher, trackers: trackers)
            bids = services.bids
            let parameters: [String: JSONValue] = [
                "app": .object(["bundle": .string("tv.example.player"), "name": .string("Player")]),
                "device": .object(["make": .string("Acme"), "model": .string("Box 4"), "devicetype": .number(7)]),
            ].merging(setup) { $1 }
            network = try await OpenRTBAdNetwork.make(
                setup: try OpenRTBAdNetwork.decodeSetup(parameters),
                context: AdNetworkContext(logger: logger, services: services))
        }

        /// Loads with the bidder answering `answer` at `/bid`; an ad that loads is kept, as the
        /// store keeps it (its network's win notice then goes). `deadline` and `networkBuffer`
        /// are the request's, as a waterfall or an auction sets them.
        func load(
            _ answer: FakeAdServer.Answer, format: AdFormat = .native, options: [String: JSONValue] = [:],
            privacy: PrivacyState? = nil, quality: AdQuality = AdQuality(), deadline: Deadline? = nil,
            networkBuffer: Duration = .zero
        ) async -> Result<NetworkAd, AdLoadError> {
            server.answer("/bid", answer)
            let decoded: DecodedOptions
            do {
                // A bidder that answers at once, with time for a machine whose cores are busy;
                // a test of time says its own timeout_ms.
                decoded = try OpenRTBAdNetwork.decodeLineItemOptions(
                    ["endpoint": .string(server.url("/bid")), "timeout_ms": .number(10_000)].merging(options) { $1 })
            } catch {
                return .failure(AdLoadError(.invalidRequest, error.description))
            }
            let request = NetworkAdRequest(
                adUnit: "unit", parameter: "tag-7", options: decoded, privacy: privacy, deadline: deadline,
                networkBuffer: networkBuffer, currency: "USD", quality: quality)
            do {
                let ad =
                    switch format {
                    case .native: try await network.loadNativeAd(request)
                    case .rewarded: try await network.loadRewardedAd(request)
                    }
                bids.settle(ad.bid, .won)
                return .success(ad)
            } catch {
                return .failure(error)
            }
        }

        func load(sample: String, format: AdFormat = .native, rewrite: [String: String] = [:]) async throws
            -> Result<NetworkAd, AdLoadError>
        {
            var text = String(decoding: try FakeAdServer.sample(sample), as: UTF8.self)
            for (old, new) in rewrite { text = text.replacingOccurrences(of: old, with: new) }
            return await load(FakeAdServer.Answer(body: Array(text.utf8)), format: format)
        }

        /// A bid response whose one bid carries `adm` (a Native 1.2 file of the samples).
        func load(nativeMarkup sample: String) async throws -> Result<NetworkAd, AdLoadError> {
            let adm = String(decoding: try FakeAdServer.sample(sample), as: UTF8.self)
            let response: [String: Any] = [
                "id": "r", "cur": "USD",
                "seatbid": [["seat": "s", "bid": [["id": "b", "impid": "1", "price": 2.5, "adm": adm, "mtype": 4]]]],
            ]
            return await load(FakeAdServer.Answer(body: Array(try JSONSerialization.data(withJSONObject: response))))
        }
    }

    static func native(_ result: Result<NetworkAd, AdLoadError>) throws -> (NetworkAd, NativeAd) {
        let ad = try result.get()
        guard case .native(let native) = ad.content else { throw DaemonFailure("not a native ad: \(ad.content)") }
        return (ad, native)
    }

    static func failure(_ result: Result<NetworkAd, AdLoadError>) throws -> AdLoadError {
        if case .failure(let error) = result { return error }
        throw DaemonFailure("it loaded, and should not have")
    }

    // MARK: - No bids

    @Test(arguments: [
        ("openrtb/ortb26-impl-7.1-nobid-empty-object.json", "no bid: no seatbid"),
        ("openrtb/ortb26-impl-7.1-nobid-empty-seatbid.json", "no bid: empty seatbid"),
        ("openrtb/ortb26-impl-7.1-nobid-nbr2.json", "no bid: reason 2 (invalid request)"),
    ])
    func noBidFormsAreNoFillWithTheirReason(sample: String, message: String) async throws {
        let bidder = try await Bidder()
        let error = try Self.failure(try await bidder.load(sample: sample))
        #expect(error == AdLoadError(.noFill, message))
    }

    @Test func aStatus204AndAnEmptyBodyAreNoFillAndA500IsANetworkError() async throws {
        let bidder = try await Bidder()
        #expect(try Self.failure(await bidder.load(.init(status: 204))).code == .noFill)
        #expect(try Self.failure(await bidder.load(.init(status: 200, body: Array(" \n".utf8)))).code == .noFill)
        let error = try Self.failure(await bidder.load(.init(status: 500, body: Array("{}".utf8))))
        #expect(error == AdLoadError(.networkError, "the bidder answered HTTP 500"))
    }

    // MARK: - Native

    @Test func ixNativeMapsTheTitleAndEveryImpressionTrackerOnce() async throws {
        let bidder = try await Bidder()
        let (ad, native) = try Self.native(
            try await bidder.load(sample: "openrtb/pbs-ix-native-response-eventtrackers-and-imptrackers.json"))
        #expect(native.headline == "Learn about this awesome thing")
        // Its asset ids (123...) answer another request's: kept, by id, as extra assets.
        #expect(native.extraAssets["asset_126"] == "My Brand")
        #expect(native.extraAssets["asset_124"] == "http://www.myads.com/thumbnail1.png")
        #expect(
            ad.impressionTrackers == [
                "https://example.com/imp-1.gif", "https://example.com/imp-2.gif",
                "https://x123.casalemedia.com/ifnotify?a=123&b=<DCC3C8BE>&c=741efbc7-f28b-5301-a18d-372a4c4226c3&d=0.123",
            ])
        #expect(ad.clickDestination == "http: //i.am.a/URL" && ad.deepLinks.isEmpty)
        #expect(ad.value == AdValue(valueMicros: 500, currency: "USD", precision: "estimated"))
    }

    @Test func rtbhouseNativeMapsItsAssetsByTheIdsTheDaemonAskedFor() async throws {
        let bidder = try await Bidder()
        let (ad, native) = try Self.native(
            try await bidder.load(sample: "openrtb/pbs-rtbhouse-app-native-response.json"))
        #expect(native.headline == "title text")
        #expect(native.images == [NativeImage(url: "image.url", width: 1200, height: 628)])
        #expect(native.mediaAspectRatio.map { abs($0 - 1200.0 / 628.0) < 1e-9 } == true)
        // Id 1 is the title's id, but this asset is data: it is kept, not misread.
        #expect(native.extraAssets == ["asset_1": "data value"])
        #expect(ad.impressionTrackers == ["imp.tracker.url", "event.tracker.url"])
        #expect(ad.clickDestination == "link.url")
    }

    @Test func smartadserverNativeWrappedInANativeKeyLoadsWithItsAdChoices() async throws {
        let bidder = try await Bidder()
        let (ad, native) = try Self.native(
            try await bidder.load(sample: "openrtb/pbs-smartadserver-native-app-response-wrapped-native.json"))
        #expect(native.headline == "Hotel Katla")
        #expect(native.adChoices?.url.hasPrefix("https://privacy.us.criteo.com/adchoices?") == true)
        #expect(ad.impressionTrackers.count == 1 && ad.impressionTrackers[0].hasPrefix("https://cat.va.us.criteo.com/"))
        #expect(native.extraAssets["asset_3"] == "Book Now")
        #expect(ad.value == AdValue(valueMicros: 864, currency: "USD", precision: "estimated"))
    }

    @Test func aPlaceholderNativeAdmIsANetworkErrorNamingIt() async throws {
        let bidder = try await Bidder()
        let error = try Self.failure(
            try await bidder.load(sample: "openrtb/prebid-openrtb-2.6-response-native-markup-placeholder-adm.json"))
        #expect(error.code == .networkError)
        #expect(error.message.hasPrefix("the native adm is not a Native 1.2 response: the document: not valid JSON"))
    }

    @Test func nativeResponsesOfTheSpecAndOfBiddersMapToTheSchema() async throws {
        let bidder = try await Bidder()
        let (startio, startioNative) = try Self.native(
            try await bidder.load(nativeMarkup: "native/native12-response-startio-wrapped-native-key.json"))
        #expect(startioNative.headline == "Title")
        #expect(
            startioNative.images == [
                NativeImage(url: "https://img.image.com/product/image.jpg", width: 320, height: 250)
            ])
        #expect(startioNative.icon == NativeImage(url: "https://img.image.com/product/icon.jpg", width: 50, height: 50))
        #expect(startioNative.body == "Description" && startioNative.advertiser == "Sponsored by Start.io")
        #expect(startio.impressionTrackers == ["https://impression.url.com", "https://event.url.com"])
        #expect(startio.clickDestination == "https://click.url.com")

        // Only a JavaScript impression tracker and a viewability one: the daemon fires neither.
        let (clickout, clickoutNative) = try Self.native(
            try await bidder.load(nativeMarkup: "native/native12-response-clickout-eventtrackers-only-js-and-img.json"))
        #expect(clickout.impressionTrackers.isEmpty)
        #expect(clickoutNative.adChoices == AdChoices(url: "http://www.myprivacyurl.com"))

        let (openx, openxNative) = try Self.native(
            try await bidder.load(nativeMarkup: "native/native12-response-openx-eventtrackers-only-img.json"))
        #expect(openxNative.headline == "OpenX (Title)")
        #expect(openx.impressionTrackers == ["http://example.com/impression"])

        let (_, thirdParty) = try Self.native(
            try await bidder.load(nativeMarkup: "native/native12-response-third-party-assetsurl.json"))
        #expect(thirdParty.headline == "Learn about this awesome thing")

        let (_, video) = try Self.native(
            try await bidder.load(nativeMarkup: "native/native12-response-video-asset-empty-vasttag.json"))
        #expect(video.headline == "Watch this awesome thing" && video.hasVideoContent)

        let invalid = try Self.failure(
            try await bidder.load(nativeMarkup: "native/native12-spec-6.1-response-verbatim-INVALID.txt"))
        #expect(invalid.code == .networkError && invalid.message.contains("not valid JSON"))
    }

    @Test func assetsOnlyAtTheAssetsURLAreFetchedFromThere() async throws {
        let bidder = try await Bidder()
        var markup = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try FakeAdServer.sample("native/native12-response-third-party-assetsurl.json")))
                as? [String: Any])
        let assets = try #require(markup["assets"])
        markup["assets"] = nil
        markup["assetsurl"] = bidder.server.url("/assets")
        bidder.server.answer(
            "/assets", .init(body: Array(try JSONSerialization.data(withJSONObject: ["assets": assets]))))
        let response: [String: Any] = [
            "seatbid": [
                [
                    "bid": [
                        [
                            "id": "b", "impid": "1", "price": 1,
                            "adm": String(decoding: try JSONSerialization.data(withJSONObject: markup), as: UTF8.self),
                        ]
                    ]
                ]
            ]
        ]
        let (_, native) = try Self.native(
            await bidder.load(.init(body: Array(try JSONSerialization.data(withJSONObject: response)))))
        #expect(native.headline == "Learn about this awesome thing")
        #expect(bidder.server.requests("/assets").count == 1)

        bidder.server.answer("/assets", .init(body: Array(#"{"nothing": []}"#.utf8)))
        let error = try Self.failure(
            await bidder.load(.init(body: Array(try JSONSerialization.data(withJSONObject: response)))))
        #expect(error == AdLoadError(.networkError, "the native assetsurl answered no assets: assets is missing"))
    }

    // MARK: - Video

    @Test func theSpecsInlineVASTBidLoadsAndFiresItsWinNoticeOnce() async throws {
        let bidder = try await Bidder()
        let local = bidder.server.url("/notice")
        let result = try await bidder.load(
            sample: "openrtb/ortb26-spec-6.3.2-response-vast2-inline-adm.json", format: .rewarded,
            rewrite: ["http://example.com": local])
        let ad = try result.get()
        let video = try #require(ad.video)
        #expect(video.mimeType == "video/mp4" && video.durationMilliseconds > 0)
        #expect(ad.content == .rewarded(Reward(type: "reward", amount: 1)))
        #expect(ad.value == AdValue(valueMicros: 3000, currency: "USD", precision: "estimated"))
        _ = try await eventually { bidder.server.requests("/notice/winnoticeurl").first }
        await bidder.trackers.idle()
        #expect(bidder.server.requests("/notice/winnoticeurl").count == 1)
    }

    @Test func sovrnsSingleQuotedVAST3Loads() async throws {
        let bidder = try await Bidder()
        let ad = try await bidder.load(
            sample: "openrtb/pbs-sovrnxsp-app-video-response-vast3-single-quotes.json", format: .rewarded
        ).get()
        #expect(ad.video?.mediaURL.isEmpty == false)
    }

    @Test func anAdServedOnTheWinNoticeIsFetchedFromIt() async throws {
        let bidder = try await Bidder()
        bidder.server.answer(
            "/winnotice",
            .init(body: try FakeAdServer.sample("vast/vast42-iab-inline-linear.xml"), contentType: "application/xml"))
        let ad = try await bidder.load(
            sample: "openrtb/ortb26-spec-6.3.1-response-ad-served-on-win-nurl-only.json", format: .rewarded,
            rewrite: ["http://adserver.com": bidder.server.url("")]
        ).get()
        #expect(ad.video?.durationMilliseconds == 16_000)
        #expect(bidder.server.requests("/winnotice").map(\.query) == ["impid=102"])
        // Unreachable as printed in the spec: a network error naming the win notice.
        let error = try Self.failure(
            try await bidder.load(
                sample: "openrtb/ortb26-spec-6.3.1-response-ad-served-on-win-nurl-only.json", format: .rewarded,
                rewrite: ["http://adserver.com": "http://127.0.0.1:1"]))
        #expect(error.code == .networkError && error.message.hasPrefix("the win notice that serves the ad failed"))
    }

    @Test func theBillingNoticeWaitsForTheImpressionAndTheLossNoticeIsNeverFiredByTheWinner() async throws {
        let bidder = try await Bidder()
        let local = bidder.server.url("/an")
        let vast = String(decoding: try FakeAdServer.sample("vast/vast42-iab-inline-linear.xml"), as: UTF8.self)
        var text = String(
            decoding: try FakeAdServer.sample(
                "openrtb/pbs-audiencenetwork-rewarded-video-response-burl-lurl-macros.json"),
            as: UTF8.self
        ).replacingOccurrences(of: "https://www.facebook.com/audiencenetwork", with: local)
        // Its proprietary adm first: not VAST, a network error; no win notice, its loss (1).
        let proprietary = try Self.failure(await bidder.load(.init(body: Array(text.utf8)), format: .rewarded))
        #expect(proprietary == AdLoadError(.networkError, "the video bid's adm is not a VAST document"))
        let loss = try await eventually { bidder.server.requests("/an/nurl/").first }
        #expect(loss.query.contains("ortb_loss_code=1&"), "\(loss.query)")
        await bidder.trackers.idle()
        #expect(bidder.server.requests("/an/nurl/").count == 1)
        #expect(bidder.server.requests("/an/burl/").isEmpty)

        var json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var seatbid = try #require(json["seatbid"] as? [[String: Any]])
        var bids = try #require(seatbid[0]["bid"] as? [[String: Any]])
        bids[0]["adm"] = vast
        seatbid[0]["bid"] = bids
        json["seatbid"] = seatbid
        text = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
        let ad = try await bidder.load(.init(body: Array(text.utf8)), format: .rewarded).get()
        let win = try await eventually { bidder.server.requests("/an/nurl/").dropFirst().first }
        #expect(win.query.contains("clearing_price=1&"))
        await bidder.trackers.idle()
        #expect(bidder.server.requests("/an/burl/").isEmpty, "the billing is owed at the impression only")
        // The impression, as the store records it: the billing goes, once.
        bidder.bids.bill(ad.bid)
        bidder.bids.bill(ad.bid)
        let billing = try await eventually { bidder.server.requests("/an/burl/").first }
        #expect(billing.query.hasSuffix("clearing_price=1"), "\(billing.query)")
        await bidder.trackers.idle()
        #expect(bidder.server.requests("/an/burl/").count == 1)
        // Its lurl shares the nurl's path: after the first load's loss, only the win notice (loss
        // code 0) may have come.
        let second = bidder.server.requests("/an/nurl/").dropFirst()
        #expect(second.allSatisfy { $0.query.contains("ortb_loss_code=0&") })
        #expect(second.count == 1, "\(bidder.server.requests("/an/nurl/").map(\.query))")
    }

    @Test(arguments: [
        ("openrtb/ortb26-impl-7.6-pod-dynamic-response.json", "VAST error 100"),
        ("openrtb/ortb26-impl-7.6-pod-structured-response.json", "VAST error 100"),
        ("openrtb/pbs-adhese-video-response-empty-mediafile-url.json", "VAST error 403"),
        (
            "openrtb/pbs-openx-rewarded-video-response-mtype2-nonvast-adm.json",
            "the video bid's adm is not a VAST document"
        ),
        (
            "openrtb/ortb26-impl-7.9.6.4-dooh-video-response-INVALID-json.json",
            "unreadable bid response: the document: not valid JSON"
        ),
    ])
    func unusableVideoBidsAreNetworkErrorsNamingWhy(sample: String, message: String) async throws {
        let bidder = try await Bidder()
        let error = try Self.failure(try await bidder.load(sample: sample, format: .rewarded))
        #expect(error.code == .networkError)
        #expect(error.message.hasPrefix(message), "\(error.message)")
    }

    @Test func anEmptyVASTBidIsNoFill() async throws {
        let bidder = try await Bidder()
        let error = try Self.failure(
            try await bidder.load(
                sample: "openrtb/pbs-inmobi-app-video-response-empty-vast-adm.json", format: .rewarded))
        #expect(error == AdLoadError(.noFill, "the VAST document has no ad"))
    }

    @Test func aNativeBidOnARewardedUnitIsRefusedByItsMarkupType() async throws {
        let bidder = try await Bidder()
        let error = try Self.failure(
            try await bidder.load(sample: "openrtb/pbs-rtbhouse-app-native-response.json", format: .rewarded))
        #expect(error.message == "no bid fits a rewarded unit: mtype 4 (native)")
    }

    // MARK: - Broken bidders

    @Test func truncatedJSONWrongTypesAndASlowBidderFailNamingWhat() async throws {
        let bidder = try await Bidder()
        let whole = try FakeAdServer.sample("openrtb/pbs-rtbhouse-app-native-response.json")
        let truncated = try Self.failure(await bidder.load(.init(body: Array(whole.prefix(whole.count / 2)))))
        #expect(truncated.code == .networkError && truncated.message.hasPrefix("unreadable bid response"))

        let wrongType = Array(#"{"id":"x","seatbid":[{"bid":[{"id":"1","impid":"1","price":"0.5"}]}]}"#.utf8)
        let typed = try Self.failure(await bidder.load(.init(body: wrongType)))
        #expect(
            typed == AdLoadError(.networkError, "unreadable bid response: seatbid[0].bid[0].price: expected a number"))

        let noPrice = Array(#"{"id":"x","seatbid":[{"bid":[{"id":"1","impid":"1"}]}]}"#.utf8)
        let missing = try Self.failure(await bidder.load(.init(body: noPrice)))
        #expect(missing == AdLoadError(.networkError, "unreadable bid response: seatbid[0].bid[0].price is missing"))

        let huge = Array(
            #"{"seatbid":[{"bid":[{"id":"1","impid":"1","price":1e300,"lurl":"\#(bidder.server.url("/loss/huge"))?code=${AUCTION_LOSS}"}]}]}"#
                .utf8)
        #expect(
            try Self.failure(await bidder.load(.init(body: huge)))
                == AdLoadError(.networkError, "a bid has an invalid price 1e+300"))
        // An invalid bid response (3): the bidder hears it.
        let loss = try await eventually { bidder.server.allRequests.first { $0.path == "/loss/huge" }?.query }
        #expect(loss == "code=3")

        let slow = try Self.failure(
            await bidder.load(.init(body: whole, delay: .seconds(2)), options: ["timeout_ms": .number(200)]))
        #expect(slow.code == .timeout)
    }

    @Test func theHighestBidAtOrAboveTheFloorWinsAndLosersHearTheyLost() async throws {
        let bidder = try await Bidder()
        let adm = String(
            decoding: try FakeAdServer.sample("native/native12-response-openx-eventtrackers-only-img.json"),
            as: UTF8.self)
        func bid(_ id: String, _ price: Double) -> [String: Any] {
            [
                "id": id, "impid": "1", "price": price, "adm": adm,
                "lurl": bidder.server.url("/loss/\(id)?code=${AUCTION_LOSS}&price=${AUCTION_PRICE}"),
            ]
        }
        let response: [String: Any] = [
            "id": "r",
            "seatbid": [
                ["seat": "a", "bid": [bid("low", 0.4), bid("high", 1.2)]], ["seat": "b", "bid": [bid("mid", 0.9)]],
            ],
        ]
        let body = Array(try JSONSerialization.data(withJSONObject: response))
        let ad = try await bidder.load(.init(body: body), options: ["bidfloor": .number(0.5)]).get()
        #expect(ad.value?.valueMicros == 1200)
        let losses = try await eventually { () -> [String]? in
            let seen = bidder.server.allRequests.filter { $0.path.hasPrefix("/loss/") }
            return seen.count == 2 ? seen.map { "\($0.path)?\($0.query)" }.sorted() : nil
        }
        // Under the floor is loss 100; outbid, 102.
        #expect(losses == ["/loss/low?code=100&price=0.4", "/loss/mid?code=102&price=0.9"])

        let floor = try Self.failure(await bidder.load(.init(body: body), options: ["bidfloor": .number(5)]))
        #expect(floor == AdLoadError(.noFill, "no bid at or above the floor 5 USD"))
        let underFloor = try await eventually { () -> [String]? in
            let seen = bidder.server.allRequests.filter { $0.path.hasPrefix("/loss/") }.dropFirst(2)
            return seen.count == 3 ? seen.map(\.query).sorted() : nil
        }
        #expect(underFloor == ["code=100&price=0.4", "code=100&price=0.9", "code=100&price=1.2"])

        // Bids in another currency are an invalid response: each bid hears it, loss 3.
        var euros = response
        euros["cur"] = "EUR"
        let currency = try Self.failure(
            await bidder.load(.init(body: Array(try JSONSerialization.data(withJSONObject: euros)))))
        #expect(currency == AdLoadError(.networkError, "the bids are in EUR; the request asked for USD"))
        let invalid = try await eventually { () -> [String]? in
            let seen = bidder.server.allRequests.filter { $0.path.hasPrefix("/loss/") }.dropFirst(5)
            return seen.count == 3 ? seen.map(\.query).sorted() : nil
        }
        #expect(invalid == ["code=3&price=0.4", "code=3&price=0.9", "code=3&price=1.2"])
    }

    @Test func aBidOfAnotherFormatIsPassedOverAndHearsWhy() async throws {
        let bidder = try await Bidder()
        let adm = String(
            decoding: try FakeAdServer.sample("native/native12-response-openx-eventtrackers-only-img.json"),
            as: UTF8.self)
        func bid(_ id: String, _ price: Double, mtype: Int) -> [String: Any] {
            [
                "id": id, "impid": "1", "price": price, "adm": adm, "mtype": mtype,
                "lurl": bidder.server.url("/loss/\(id)?code=${AUCTION_LOSS}"),
            ]
        }
        // The banner bid is higher, but a native unit cannot show it: the native bid wins.
        let response: [String: Any] = [
            "seatbid": [["seat": "a", "bid": [bid("banner", 2, mtype: 1), bid("native", 1, mtype: 4)]]]
        ]
        let ad = try await bidder.load(.init(body: Array(try JSONSerialization.data(withJSONObject: response)))).get()
        #expect(ad.value?.valueMicros == 1000)
        func losses(_ count: Int) async throws -> [String] {
            try await eventually { () -> [String]? in
                let seen = bidder.server.allRequests.filter { $0.path.hasPrefix("/loss/") }
                return seen.count >= count ? seen.map { "\($0.path)?\($0.query)" } : nil
            }
        }
        // 204: "Creative Filtered – Incorrect Creative Format".
        #expect(try await losses(1) == ["/loss/banner?code=204"])

        // When no bid fits, the answer is an error, and every bid hears why.
        let banners: [String: Any] = [
            "seatbid": [["seat": "a", "bid": [bid("banner", 2, mtype: 1), bid("audio", 1, mtype: 3)]]]
        ]
        let error = try Self.failure(
            await bidder.load(.init(body: Array(try JSONSerialization.data(withJSONObject: banners)))))
        #expect(error == AdLoadError(.networkError, "no bid fits a native unit: mtype 1 (banner), mtype 3 (audio)"))
        #expect(
            try await losses(3).sorted() == ["/loss/audio?code=204", "/loss/banner?code=204", "/loss/banner?code=204"])

        // A misfit is never checked against the unit's blocks: it hears 204 whatever its
        // advertiser, while the fitting bid the unit blocks hears 205.
        var blockedNative = bid("native", 1, mtype: 4)
        blockedNative["adomain"] = ["blocked.example"]
        var blockedBanner = bid("banner", 2, mtype: 1)
        blockedBanner["adomain"] = ["blocked.example"]
        let blocked = try Self.failure(
            await bidder.load(
                .init(
                    body: Array(
                        try JSONSerialization.data(withJSONObject: [
                            "seatbid": [["bid": [blockedBanner, blockedNative]]]
                        ]))
                ),
                quality: AdQuality(blockedAdvertisers: ["blocked.example"])))
        #expect(
            blocked
                == AdLoadError(
                    .noFill, "every bid was blocked by the ad unit (advertiser; 1 passed over for their format)"))
        #expect(
            try await losses(5).suffix(2).sorted() == ["/loss/banner?code=204", "/loss/native?code=205"])
    }

    // MARK: - The request

    @Test func theBidRequestCarriesTheImpressionTheAppTheDeviceAndThePrivacyState() async throws {
        let bidder = try await Bidder()
        let started = ContinuousClock.now
        let result = await bidder.load(
            .init(status: 204), format: .native,
            options: [
                "timeout_ms": .number(4500), "bidfloor": .number(0.3), "headers": .object(["X-Seat": .string("42")]),
            ],
            privacy: PrivacyState(
                limitAdTracking: true, tcfConsent: "CO-consent", gpp: "DBABMA~", gppSid: [2], usPrivacy: "1YNN",
                gdprApplies: true),
            deadline: Deadline(after: .seconds(10), on: ManualClock()))
        let received = try #require(
            bidder.server.requests("/bid").last, "\(result) after \(ContinuousClock.now - started)")
        #expect(received.headers["x-openrtb-version"] == "2.6" && received.headers["x-seat"] == "42")
        let json = try #require(received.json)
        // tmax: what is left of the 4.5 s when the request goes, on a clock that has not moved.
        // (The same time bounds the exchange in real time: 450 ms ran out under the whole suite.)
        #expect(json["tmax"] as? Int == 4500)
        #expect(json["at"] as? Int == 1 && json["cur"] as? [String] == ["USD"])
        #expect((json["source"] as? [String: Any])?["tid"] as? String != nil)
        let imp = try #require((json["imp"] as? [[String: Any]])?.first)
        #expect(imp["tagid"] as? String == "tag-7" && imp["bidfloor"] as? Double == 0.3)
        let nativeObject = try #require(imp["native"] as? [String: Any])
        #expect(nativeObject["ver"] as? String == "1.2")
        let encodedRequest = try #require(nativeObject["request"] as? String)
        let nativeRequest = try #require(
            try JSONSerialization.jsonObject(with: Data(encodedRequest.utf8)) as? [String: Any])
        let assets = try #require(nativeRequest["assets"] as? [[String: Any]])
        let dataTypes = assets.compactMap { ($0["data"] as? [String: Any])?["type"] as? Int }.sorted()
        let imageTypes = assets.compactMap { ($0["img"] as? [String: Any])?["type"] as? Int }.sorted()
        // What the seeds' native ad has: body, sponsor, call to action, rating, price; main image and icon.
        #expect(dataTypes == [1, 2, 3, 6, 12] && imageTypes == [1, 3])
        #expect(assets.contains { $0["title"] != nil })
        #expect((nativeRequest["eventtrackers"] as? [[String: Any]])?.first?["event"] as? Int == 1)
        #expect((json["app"] as? [String: Any])?["bundle"] as? String == "tv.example.player")
        let device = try #require(json["device"] as? [String: Any])
        #expect(device["make"] as? String == "Acme" && device["model"] as? String == "Box 4")
        #expect(device["devicetype"] as? Int == 7 && device["lmt"] as? Int == 1 && device["os"] as? String != nil)
        let regs = try #require(json["regs"] as? [String: Any])
        #expect(
            regs["gpp"] as? String == "DBABMA~" && regs["gpp_sid"] as? [Int] == [2]
                && regs["us_privacy"] as? String == "1YNN")
        #expect((json["user"] as? [String: Any])?["consent"] as? String == "CO-consent")
    }

    /// Every key path of a JSON value, list elements as `[]`: `.assets[].img.wmin`.
    static func keyPaths(_ value: Any, _ prefix: String = "") -> Set<String> {
        if let object = value as? [String: Any] {
            return object.reduce(into: Set<String>()) { paths, entry in
                paths.insert(prefix + "." + entry.key)
                paths.formUnion(keyPaths(entry.value, prefix + "." + entry.key))
            }
        }
        if let list = value as? [Any] {
            return list.reduce(into: Set<String>()) { $0.formUnion(keyPaths($1, prefix + "[]")) }
        }
        return []
    }

    @Test func tmaxIsWhatTheDeadlineLeavesOnItsClockLessTheNetworkBuffer() async throws {
        let bidder = try await Bidder()
        let clock = ManualClock()
        // Seconds, not ms: the request itself is timed by what the deadline leaves, in real time,
        // and a busy machine may take more than a few hundred ms to send it.
        let deadline = Deadline(after: .milliseconds(10_000), on: clock)
        clock.advance(by: .milliseconds(200))
        _ = await bidder.load(.init(status: 204), deadline: deadline, networkBuffer: .milliseconds(40))
        let json = try #require(bidder.server.requests("/bid").last?.json)
        // 10,000 ms less the 200 gone, the 20 kept to read the answer and the network's 40.
        #expect(json["tmax"] as? Int == 9740)
    }

    @Test func theNativeRequestUsesOnlyFieldsTheRealWorldNativeRequestsUse() async throws {
        let bidder = try await Bidder()
        _ = await bidder.load(.init(status: 204))
        let imp = try #require(((bidder.server.requests("/bid").last?.json)?["imp"] as? [[String: Any]])?.first)
        let encoded = try #require((imp["native"] as? [String: Any])?["request"] as? String)
        let ours = Self.keyPaths(try JSONSerialization.jsonObject(with: Data(encoded.utf8)))
        var known = Set<String>()
        for name in [
            "native12-request-social-context-eventtrackers.json", "native12-request-content-context-video-asset.json",
            "native12-request-third-party-aurl-durl.json", "native12-request-smartadserver-decoded-request-string.json",
        ] {
            known.formUnion(
                Self.keyPaths(try JSONSerialization.jsonObject(with: Data(try FakeAdServer.sample("native/\(name)")))))
        }
        #expect(ours.count > 15)
        #expect(ours.subtracting(known).isEmpty, "\(ours.subtracting(known).sorted())")
    }

    @Test func aRewardedRequestAsksForRewardedVideoAsTheRealWorldRequestsDo() async throws {
        let bidder = try await Bidder()
        _ = await bidder.load(.init(status: 204), format: .rewarded)
        let imp = try #require(((bidder.server.requests("/bid").last?.json)?["imp"] as? [[String: Any]])?.first)
        let sample = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try FakeAdServer.sample("openrtb/pbs-openx-rewarded-video-request.json")))
                as? [String: Any])
        let sampleImp = try #require((sample["imp"] as? [[String: Any]])?.first)
        #expect(imp["rwdd"] as? Int == sampleImp["rwdd"] as? Int && imp["instl"] as? Int == sampleImp["instl"] as? Int)
        let video = try #require(imp["video"] as? [String: Any])
        #expect((video["mimes"] as? [String])?.contains("video/mp4") == true)
        #expect((video["protocols"] as? [Int])?.contains(7) == true && video["w"] as? Int == 1920)
    }
}
