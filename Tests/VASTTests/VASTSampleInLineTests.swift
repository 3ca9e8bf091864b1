import Testing

@testable import VAST

/// Every InLine sample of `shared/samples/vast/`, resolved as a tag: what the player gets, or why it gets nothing.
@Suite struct VASTSampleInLineTests {
    static let iabMP4 = "https://iab-publicfiles.s3.amazonaws.com/vast/VAST-4.0-Short-Intro.mp4"

    @Test func vast42InlineLinearChoosesTheFileClosestToTheScreen() async throws {
        let fetcher = StubFetcher()
        let resolution = try await fetcher.resolveSample("vast42-iab-inline-linear.xml")
        let creative = try #require(resolution.creative)
        #expect(resolution.discarded == [])
        #expect(
            creative.mediaFile
                == VASTMediaFile(
                    url: Self.iabMP4, mimeType: "video/mp4", width: 1280, height: 720, bitrate: 2000,
                    delivery: "progressive", codec: "H.264"))
        #expect(creative.adID == "20001")
        #expect(creative.adSystem == "iabtechlab")
        #expect(creative.adTitle == "iabtechlab video ad")
        #expect(creative.durationMilliseconds == 16000)
        #expect(creative.skipOffsetMilliseconds == nil)
        #expect(creative.impressions == ["https://example.com/track/impression"])
        #expect(creative.errorURLs == ["https://example.com/error"])
        #expect(creative.tracking.count == 5)
        #expect(creative.tracking["start"] == ["https://example.com/tracking/start"])
        #expect(creative.tracking["complete"] == ["https://example.com/tracking/complete"])
        #expect(creative.tracking["progress"] == nil)
        #expect(
            creative.progressTracking
                == [VASTProgressTracker(offsetMilliseconds: 10000, url: "http://example.com/tracking/progress-10")])
        #expect(creative.clickThrough == "https://iabtechlab.com")
        #expect(creative.clickTracking == [])
        #expect(creative.icons == [])
        #expect(creative.pricing == VASTPricing(value: 25, currency: "USD", model: "cpm"))
        #expect(creative.wrapperDepth == 0)
        let fetched = await fetcher.log.urls
        #expect(fetched == [Samples.vastURL("vast42-iab-inline-linear.xml")])
    }

    @Test func smallerScreenAndBitrateCapChooseTheLowResolutionFile() async throws {
        let preferences = VASTMediaPreferences(width: 640, height: 360, maximumBitrate: 700)
        let resolution = try await StubFetcher().resolveSample("vast42-iab-inline-linear.xml", preferences: preferences)
        let creative = try #require(resolution.creative)
        #expect(
            creative.mediaFile.url
                == "https://iab-publicfiles.s3.amazonaws.com/vast/VAST-4.0-Short-Intro-low-resolution.mp4")
        #expect(creative.mediaFile.bitrate == 600)
    }

    @Test func vast42InlineCompanionUsesTheLinearOfTheSecondCreative() async throws {
        let resolution = try await StubFetcher().resolveSample("vast42-iab-inline-companion.xml")
        let creative = try #require(resolution.creative)
        #expect(creative.adID == "20004")
        #expect(creative.adTitle == "VAST 4.0 Pilot - Scenario 5")
        #expect(creative.mediaFile.url == Self.iabMP4)
        #expect(creative.durationMilliseconds == 16000)
        #expect(creative.tracking.count == 5)
        #expect(creative.progressTracking.map(\.offsetMilliseconds) == [10000])
        #expect(creative.clickThrough == "https://iabtechlab.com")
    }

    @Test func vast42IconClickFallbacksTakesTheIconsOwnImageNotTheFallback() async throws {
        let resolution = try await StubFetcher().resolveSample("vast42-iab-icon-click-fallbacks.xml")
        let creative = try #require(resolution.creative)
        #expect(creative.mediaFile.url == Self.iabMP4)
        #expect(creative.icons == [VASTIcon(imageURL: "https://example.org/images/ad_icon_img.png")])
        #expect(creative.tracking["start"] == ["https://example.com/tracking/start"])
        #expect(creative.durationMilliseconds == 16000)
    }

    @Test func vast41InlineSimpleHasItsAdvertiser() async throws {
        let resolution = try await StubFetcher().resolveSample("vast41-iab-inline-simple.xml")
        let creative = try #require(resolution.creative)
        #expect(creative.advertiser == "IAB Sample Company")
        #expect(creative.adTitle == "Inline Simple Ad")
        #expect(creative.mediaFile.url == Self.iabMP4)
        #expect(creative.mediaFile.codec == "H.264")
        #expect(creative.impressions == ["https://example.com/track/impression"])
        #expect(creative.errorURLs == ["https://example.com/error"])
        #expect(creative.progressTracking.map(\.url) == ["http://example.com/tracking/progress-10"])
    }

    @Test func vast41AudioAdIsRefusedWith200() async throws {
        let resolution = try await StubFetcher().resolveSample("vast41-iab-audio-daast.xml")
        let error = try #require(resolution.error)
        #expect(error.code == .unexpectedAdType)
        #expect(error.errorURLs == ["https://example.com/error"])
        #expect(error.message.contains("audio"))
    }

    @Test func vast40RealeyesHasTwoIconsAndIgnoresMezzanineAndInteractiveFiles() async throws {
        let resolution = try await StubFetcher().resolveSample(
            "vast40-realeyes-inline-linear-two-icons-verification.xml")
        let creative = try #require(resolution.creative)
        #expect(creative.mediaFile.url == "https://iabtechlab.com/wp-content/uploads/2016/07/VAST-4.0-Short-Intro.mp4")
        #expect(creative.mediaFile.width == 1280)
        #expect(creative.durationMilliseconds == 16000)
        #expect(creative.impressions == ["http://example.com/track/impression"])
        #expect(creative.errorURLs == ["http://example.com/error"])
        // The start tracker's stray offset="09:15:23" does not make it a progress tracker.
        #expect(creative.tracking["start"] == ["http://example.com/tracking/start"])
        #expect(creative.tracking.count == 5)
        #expect(creative.progressTracking == [])
        let image =
            "https://images-nl.ott.kaltura.com/Service.svc/GetImage/p/436/entry_id/"
            + "422ec4ffe19d4435aaca092dc83bae0c_12/version/0/quality/85/width/118/height/15/"
        #expect(
            creative.icons == [
                VASTIcon(
                    program: "programName", imageURL: image, width: 118, height: 15, xPosition: "left",
                    yPosition: "top", clickThrough: "https://iabtechlab.com", clickTracking: ["https://iabtechlab.com"]),
                VASTIcon(
                    program: "programName2", imageURL: image, width: 118, height: 15, xPosition: "100",
                    yPosition: "100", clickThrough: "https://iabtechlab.com", clickTracking: ["https://iabtechlab.com"]),
            ])
        #expect(creative.pricing == VASTPricing(value: 25, currency: "USD", model: "cpm"))
    }

    @Test func vast40NonLinearOnlyIs201() async throws {
        let resolution = try await StubFetcher().resolveSample("vast40-iab-inline-nonlinear.xml")
        let error = try #require(resolution.error)
        #expect(error.code == .unexpectedLinearity)
        #expect(error.errorURLs == ["http://example.com/error"])
    }

    @Test func vast30InlineHasClickTrackingButNoClickThrough() async throws {
        let resolution = try await StubFetcher().resolveSample("vast30-iab-inline-linear.xml")
        let creative = try #require(resolution.creative)
        #expect(
            creative.mediaFile
                == VASTMediaFile(
                    url: Self.iabMP4, mimeType: "video/mp4", width: 400, height: 300, bitrate: 500,
                    delivery: "progressive", codec: "0"))
        #expect(creative.durationMilliseconds == 16000)
        #expect(creative.clickThrough == nil)
        #expect(creative.clickTracking == ["https://iabtechlab.com"])
        #expect(creative.tracking.keys.sorted() == ["complete", "firstQuartile", "midpoint", "start", "thirdQuartile"])
        #expect(creative.tracking["midpoint"] == ["http://example.com/tracking/midpoint"])
        #expect(
            creative.progressTracking
                == [VASTProgressTracker(offsetMilliseconds: 10000, url: "http://example.com/tracking/progress-10")])
        #expect(creative.impressions == ["http://example.com/track/impression"])
        #expect(creative.errorURLs == ["http://example.com/error"])
        #expect(creative.pricing == VASTPricing(value: 25, currency: "USD", model: "cpm"))
    }

    @Test func vast20RegularTrimsCDATAPaddedURLs() async throws {
        let resolution = try await StubFetcher().resolveSample("vast20-iab-inline-linear-regular.xml")
        let creative = try #require(resolution.creative)
        #expect(creative.adID == "preroll-1")
        #expect(creative.adTitle == "5748406")
        #expect(creative.mediaFile.url == Self.iabMP4)
        #expect(creative.mediaFile.width == 600)
        #expect(creative.mediaFile.height == 396)
        #expect(creative.mediaFile.bitrate == 496)
        #expect(creative.durationMilliseconds == 30000)
        #expect(creative.clickThrough == "http://www.target.com")
        #expect(
            creative.impressions == [
                "http://b.scorecardresearch.com/b?C1=1&C2=6000003&C3=0000000200500000197000000&C4=us"
                    + "&C7=http://www.scanscout.com&C8=scanscout.com&C9=http://www.scanscout.com&C10=xn&rn=-103217130"
            ])
        #expect(creative.tracking == [:])
        #expect(creative.errorURLs == [])
    }

    @Test func vast20VPAIDOnlyIs403() async throws {
        let resolution = try await StubFetcher().resolveSample("vast20-iab-inline-linear-vpaid.xml")
        let error = try #require(resolution.error)
        #expect(error.code == .noSupportedMediaFile)
        #expect(error.errorURLs == ["http://example.com/trackingurl/error"])
        #expect(error.message.contains("VPAID"))
    }

    @Test func sokilBrokenSecondAdDoesNotStopTheGoodFirstOne() async throws {
        let resolution = try await StubFetcher().resolveSample("sokil-vast40-broken-unknown-ad-child.xml")
        let creative = try #require(resolution.creative)
        #expect(resolution.discarded == [])
        #expect(creative.adID == "ad1")
        // Both files are 2500 kbps; 200x200 is closer to the screen than 100x100.
        #expect(creative.mediaFile.url == "http://server.com/media2.mp4")
        #expect(creative.durationMilliseconds == 128_000)
        #expect(
            creative.impressions == [
                "http://ad.server.com/impression1", "http://ad.server.com/impression2",
                "http://ad.server.com/impression3",
            ])
        #expect(creative.tracking["start"] == ["http://ad.server.com/trackingevent/start"])
        #expect(creative.tracking["pause"] == ["http://ad.server.com/trackingevent/stop"])
        #expect(creative.clickThrough == "http://entertainmentserver.com/landing")
        #expect(creative.clickTracking == ["http://ad.server.com/videoclicks/clicktracking"])
        #expect(creative.errorURLs == [])
    }

    @Test func sokilUnknownAdChildIs101WhenTriedFirst() async throws {
        let document = try VASTReader.read(try Samples.vast("sokil-vast40-broken-unknown-ad-child.xml"))
        try #require(document.ads.count == 2)
        #expect(document.ads[1].content == .unrecognized(["WrongAdSection"]))
        // The same two ads with the broken one in a pod, so it is tried first.
        var text = String(decoding: try Samples.vast("sokil-vast40-broken-unknown-ad-child.xml"), as: UTF8.self)
        text = text.replacingOccurrences(of: "<Ad id=\"ad2\">", with: "<Ad id=\"ad2\" sequence=\"1\">")
        let resolution = await StubFetcher().resolver().resolve(document: Array(text.utf8), url: nil)
        let creative = try #require(resolution.creative)
        #expect(creative.adID == "ad1")
        let discarded = try #require(resolution.discarded)
        #expect(discarded.map(\.code) == [.schema])
        #expect(discarded.first?.message.contains("WrongAdSection") == true)
    }

    @Test func realeyesInlineWithEmptyImpressionStillPlays() async throws {
        let resolution = try await StubFetcher().resolveSample("realeyes-gam/Pubads_Inline_Model-test.xml")
        let creative = try #require(resolution.creative)
        #expect(creative.adID == "29619")
        #expect(creative.adSystem == "STARlight.NET")
        #expect(creative.adTitle == "Ster en Cultuur (weekpak. volwas)ONLINE")
        #expect(creative.impressions == [])
        #expect(creative.mediaFile.url == "https://cdn.ster.nl/banners/29619uq.mp4")
        #expect(creative.durationMilliseconds == 20000)
        #expect(creative.clickThrough == "https://bit.ly/CherryPickersLiebe")
    }

    @Test func emptyVAST40AdmIsNoAdWithoutErrorURLs() async throws {
        let resolution = try await StubFetcher().resolveSample("pbs-eskimi-adm-empty-vast40.xml")
        #expect(resolution == .noAd(errorURLs: []))
    }

    @Test func errorOnlyDocumentsAreNoAdWithTheirRootErrorURL() async throws {
        let sokil = try await StubFetcher().resolveSample("sokil-vast30-error-only-no-ad.xml")
        #expect(sokil == .noAd(errorURLs: ["https://ad.server.com/tracking/error/noad"]))
        let dailymotion = try await StubFetcher().resolveSample("vast-client-js/empty-no-ad.xml")
        #expect(dailymotion == .noAd(errorURLs: ["http://example.com/empty-no-ad"]))
    }
}
