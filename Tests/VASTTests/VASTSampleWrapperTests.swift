import Testing

@testable import VAST

/// The dailymotion vast-client-js samples and the other wrapper samples: chains followed through the stub fetcher.
@Suite struct VASTSampleWrapperTests {
    static func example(_ path: String) -> String {
        "http://example.com/" + path
    }

    @Test func sampleXMLPlaysTheFirstAdOfThePod() async throws {
        let resolution = try await StubFetcher().resolveSample("vast-client-js/sample.xml")
        let creative = try #require(resolution.creative)
        #expect(resolution.discarded == [])
        #expect(creative.adID == "ad_id_0001")
        #expect(creative.adSystem == "AdServer")
        #expect(creative.adTitle == "Ad title")
        #expect(creative.advertiser == "Advertiser name")
        #expect(
            creative.mediaFile
                == VASTMediaFile(
                    url: Self.example("linear-asset.mp4"), mimeType: "video/mp4", width: 512, height: 288,
                    bitrate: 849, delivery: "progressive"))
        #expect(creative.durationMilliseconds == 90123)
        #expect(
            creative.impressions == [
                Self.example("impression1_asset:[ASSETURI]_[CACHEBUSTING]"), Self.example("impression2_[random]"),
                Self.example("impression3_[RANDOM]"),
            ])
        #expect(creative.errorURLs == [Self.example("error_[ERRORCODE]")])
        #expect(creative.tracking.count == 6)
        #expect(creative.tracking["close"] == [Self.example("linear-close")])
        #expect(
            creative.progressTracking == [
                VASTProgressTracker(offsetMilliseconds: 30000, url: Self.example("linear-progress-30sec")),
                VASTProgressTracker(offsetMilliseconds: 54074, url: Self.example("linear-progress-60%")),
            ])
        #expect(creative.clickThrough == Self.example("linear-clickthrough_adplayhead:[ADPLAYHEAD]"))
        #expect(
            creative.clickTracking == [
                Self.example("linear-clicktracking1_ts:[TIMESTAMP]_adplayhead:[ADPLAYHEAD]"),
                Self.example("linear-clicktracking2"),
            ])
        #expect(
            creative.icons == [
                VASTIcon(
                    program: "ad1", imageURL: Self.example("linear-icon.gif"), width: 60, height: 20,
                    xPosition: "left", yPosition: "bottom", clickThrough: Self.example("linear-clickthrough"),
                    clickTracking: [Self.example("linear-clicktracking1"), Self.example("linear-clicktracking2")],
                    viewTracking: [Self.example("linear-viewtracking")])
            ])
        #expect(creative.pricing == VASTPricing(value: 1.09, currency: "USD", model: "CPM"))
    }

    @Test func sampleXMLWithoutMP4FailsBothAdsWith403() async throws {
        let preferences = VASTMediaPreferences(mimeTypes: ["video/webm"])
        let resolution = try await StubFetcher().resolveSample("vast-client-js/sample.xml", preferences: preferences)
        let error = try #require(resolution.error)
        #expect(error.code == .noSupportedMediaFile)
        #expect(error.errorURLs == [Self.example("error_[ERRORCODE]")])
        #expect(error.message.contains("1 more"))
    }

    @Test func inlineLinearHasNoClickThrough() async throws {
        let resolution = try await StubFetcher().resolveSample("vast-client-js/inline-linear.xml")
        let creative = try #require(resolution.creative)
        #expect(creative.mediaFile.url == "https://iabtechlab.com/wp-content/uploads/2016/07/VAST-4.0-Short-Intro.mp4")
        #expect(creative.durationMilliseconds == 16000)
        #expect(creative.clickThrough == nil)
        #expect(creative.clickTracking == ["https://iabtechlab.com"])
        #expect(creative.tracking["start"] == [Self.example("tracking/start")])
        #expect(creative.pricing == VASTPricing(value: 25, currency: "USD", model: "cpm"))
    }

    @Test func vpaidOnlyIs403WithNoErrorURLs() async throws {
        let resolution = try await StubFetcher().resolveSample("vast-client-js/vpaid.xml")
        #expect(resolution.error?.code == .noSupportedMediaFile)
        #expect(resolution.error?.errorURLs == [])
    }

    @Test func emptyCreativesIs101WithTheInlineErrorURL() async throws {
        let resolution = try await StubFetcher().resolveSample("vast-client-js/empty-no-creative.xml")
        let error = try #require(resolution.error)
        #expect(error.code == .schema)
        #expect(error.errorURLs == [Self.example("empty-no-creative_inline-error")])
    }

    @Test func notXMLIs100() async throws {
        let resolution = try await StubFetcher().resolveSample("vast-client-js/invalid-xmlfile.xml")
        #expect(resolution.error?.code == .xmlParse)
        #expect(resolution.error?.errorURLs == [])
    }

    @Test func vast1RootIs102() async throws {
        let resolution = try await StubFetcher().resolveSample("vast-client-js/outdated-vast.xml")
        #expect(resolution.error?.code == .unsupportedVersion)
        #expect(resolution.error?.message.contains("VideoAdServingTemplate") == true)
    }

    @Test func wrapperChainAToBToSampleMergesEveryWrappersTrackers() async throws {
        let fetcher = StubFetcher()
        let resolution = try await fetcher.resolveSample("vast-client-js/wrapper-a.xml")
        let creative = try #require(resolution.creative)
        #expect(resolution.discarded == [])
        let fetched = await fetcher.log.urls
        #expect(
            fetched == ["wrapper-a.xml", "wrapper-b.xml", "sample.xml"].map { Samples.vastURL("vast-client-js/" + $0) })
        #expect(creative.wrapperDepth == 2)
        #expect(creative.adID == "ad_id_0001")
        #expect(creative.mediaFile.url == Self.example("linear-asset.mp4"))
        #expect(
            creative.impressions == [
                Self.example("wrapperA-impression"), Self.example("wrapperB-impression1"),
                Self.example("wrapperB-impression2"), Self.example("impression1_asset:[ASSETURI]_[CACHEBUSTING]"),
                Self.example("impression2_[random]"), Self.example("impression3_[RANDOM]"),
            ])
        #expect(
            creative.errorURLs == [
                Self.example("wrapperA-error"), Self.example("wrapperB-error"), Self.example("error_[ERRORCODE]"),
            ])
        // Both Linear creatives of wrapper A count; its NonLinearAds trackers do not.
        #expect(
            creative.tracking["start"] == [
                Self.example("wrapperA-linear-start1"), Self.example("wrapperA-linear-start2"),
                Self.example("wrapperB-linear-start"), Self.example("linear-start"),
            ])
        #expect(
            creative.tracking["complete"] == [
                Self.example("wrapperA-linear-complete"), Self.example("wrapperB-linear-complete"),
                Self.example("linear-complete"),
            ])
        #expect(creative.tracking.count == 6)
        #expect(
            creative.progressTracking == [
                VASTProgressTracker(offsetMilliseconds: 30000, url: Self.example("wrapperA-linear-progress-30sec")),
                VASTProgressTracker(offsetMilliseconds: 30000, url: Self.example("wrapperB-linear-progress-30sec")),
                VASTProgressTracker(offsetMilliseconds: 30000, url: Self.example("linear-progress-30sec")),
                VASTProgressTracker(offsetMilliseconds: 54074, url: Self.example("wrapperA-linear-progress-60%")),
                VASTProgressTracker(offsetMilliseconds: 54074, url: Self.example("wrapperB-linear-progress-60%")),
                VASTProgressTracker(offsetMilliseconds: 54074, url: Self.example("linear-progress-60%")),
                VASTProgressTracker(offsetMilliseconds: 81111, url: Self.example("wrapperA-linear-progress-90%")),
            ])
        #expect(
            creative.clickTracking == [
                Self.example("wrapperA-linear-clicktracking1"), Self.example("wrapperA-linear-clicktracking2"),
                Self.example("wrapperA-linear-clicktracking3"), Self.example("wrapperB-linear-clicktracking"),
                Self.example("linear-clicktracking1_ts:[TIMESTAMP]_adplayhead:[ADPLAYHEAD]"),
                Self.example("linear-clicktracking2"),
            ])
        // The inline's ClickThrough wins over wrapper B's.
        #expect(creative.clickThrough == Self.example("linear-clickthrough_adplayhead:[ADPLAYHEAD]"))
    }

    @Test func wrapperBAloneIsDepthOne() async throws {
        let resolution = try await StubFetcher().resolveSample("vast-client-js/wrapper-b.xml")
        let creative = try #require(resolution.creative)
        #expect(creative.wrapperDepth == 1)
        #expect(creative.impressions.count == 5)
        #expect(creative.errorURLs == [Self.example("wrapperB-error"), Self.example("error_[ERRORCODE]")])
    }

    @Test func wrapperToAnEmptyDocumentIs303WithBothErrorURLs() async throws {
        let resolution = try await StubFetcher().resolveSample("vast-client-js/wrapper-empty.xml")
        let error = try #require(resolution.error)
        #expect(error.code == .noAdsAfterWrapper)
        #expect(
            error.errorURLs == [Self.example("wrapper-empty_wrapper-error"), Self.example("empty-no-ad")])
    }

    @Test func wrapperPodSkipsTheVPAIDAdAndPlaysTheSecondInSequence() async throws {
        let fetcher = StubFetcher()
        let resolution = try await fetcher.resolveSample("vast-client-js/wrapper-multiple-ads.xml")
        let creative = try #require(resolution.creative)
        // sequence 1 (→ vpaid.xml) fails with 403; sequence 2 (→ inline-linear.xml) plays.
        #expect(creative.mediaFile.url == "https://iabtechlab.com/wp-content/uploads/2016/07/VAST-4.0-Short-Intro.mp4")
        #expect(creative.adID == "20001")
        #expect(creative.wrapperDepth == 1)
        #expect(creative.errorURLs == [Self.example("error")])
        #expect(creative.impressions == [Self.example("track/impression")])
        let discarded = try #require(resolution.discarded)
        #expect(discarded.map(\.code) == [.noSupportedMediaFile])
        #expect(discarded.first?.errorURLs == [Self.example("error")])
        let fetched = await fetcher.log.urls
        #expect(
            fetched
                == ["wrapper-multiple-ads.xml", "vpaid.xml", "inline-linear.xml"].map {
                    Samples.vastURL("vast-client-js/" + $0)
                })
    }

    @Test func wrapperPodWhoseAdsAllFailReportsTheFirstCodeAndEveryErrorURL() async throws {
        // Without MP4 nothing plays: vpaid.xml 403, inline-linear.xml 403, sample.xml 403, vpaid2.xml is missing 301.
        let fetcher = StubFetcher()
        let resolution = try await fetcher.resolveSample(
            "vast-client-js/wrapper-multiple-ads.xml", preferences: VASTMediaPreferences(mimeTypes: ["video/webm"]))
        let error = try #require(resolution.error)
        #expect(error.code == .noSupportedMediaFile)
        #expect(error.errorURLs == [Self.example("error"), Self.example("error_[ERRORCODE]")])
        #expect(error.message.contains("3 more"))
        let fetched = await fetcher.log.urls
        #expect(fetched.last == Samples.vastURL("vast-client-js/vpaid2.xml"))
    }

    @Test func realeyesGAMWrapperMergesItsTrackersIntoTheInline() async throws {
        let fetcher = StubFetcher()
        let resolution = try await fetcher.resolveSample("realeyes-gam/Pubads_Wrapper_Model-test.xml")
        let creative = try #require(resolution.creative)
        let fetched = await fetcher.log.urls
        #expect(
            fetched == [
                Samples.vastURL("realeyes-gam/Pubads_Wrapper_Model-test.xml"), "test://Pubads_Inline_Model-test",
            ])
        #expect(creative.wrapperDepth == 1)
        #expect(creative.adID == "29619")
        #expect(creative.mediaFile.url == "https://cdn.ster.nl/banners/29619uq.mp4")
        #expect(creative.mediaFile.width == 720)
        #expect(creative.mediaFile.height == 404)
        #expect(creative.mediaFile.bitrate == 817)
        #expect(creative.durationMilliseconds == 20000)
        #expect(creative.clickThrough == "https://bit.ly/CherryPickersLiebe")
        #expect(creative.impressions.count == 1)
        #expect(creative.impressions.first?.hasPrefix("https://securepubads.g.doubleclick.net/pcs/view?xai=") == true)
        #expect(creative.impressions.first?.hasSuffix("&adurl=") == true)
        #expect(creative.errorURLs.count == 1)
        #expect(creative.errorURLs.first?.hasSuffix("&label=videoplayfailed[ERRORCODE]") == true)
        // 15 Linear events; the Tracking elements inside Extensions are not VAST trackers.
        #expect(
            creative.tracking.keys.sorted() == [
                "acceptInvitationLinear", "closeLinear", "complete", "creativeView", "exitFullscreen",
                "firstQuartile", "fullscreen", "midpoint", "mute", "pause", "resume", "rewind", "start",
                "thirdQuartile", "unmute",
            ])
        #expect(creative.tracking.values.allSatisfy { $0.count == 1 })
        #expect(
            creative.tracking["start"]?.first?.hasSuffix(
                "&label=part2viewed&ad_mt=[AD_MT]&acvw=[VIEWABILITY]&gv=[GOOGLE_VIEWABILITY]") == true)
        #expect(creative.clickTracking.count == 1)
        #expect(creative.clickTracking.first?.hasPrefix("https://pubads.g.doubleclick.net/pcs/click?xai=") == true)
    }

    @Test func iabWrapperFollowsTheRawGitHubURIToTheCompanionInline() async throws {
        let fetcher = StubFetcher()
        let resolution = try await fetcher.resolveSample("vast42-iab-wrapper.xml")
        let creative = try #require(resolution.creative)
        #expect(creative.wrapperDepth == 1)
        #expect(creative.adID == "20004")
        #expect(creative.mediaFile.url == VASTSampleInLineTests.iabMP4)
        // The wrapper's and the inline's impression and error URLs are the same string: kept once.
        #expect(creative.impressions == ["https://example.com/track/impression"])
        #expect(creative.errorURLs == ["https://example.com/error"])
        let fetched = await fetcher.log.urls
        #expect(fetched.count == 2)
    }
}

/// The resolver is used from many tasks at once; XML parsing must hold up under that.
@Suite struct VASTConcurrentResolutionTests {
    @Test func manyConcurrentResolutionsAgree() async throws {
        let fetcher = StubFetcher()
        let expected = try await fetcher.resolveSample("vast-client-js/wrapper-a.xml")
        let results = try await withThrowingTaskGroup(of: VASTResolution.self) { group in
            for _ in 0..<64 {
                group.addTask { try await fetcher.resolveSample("vast-client-js/wrapper-a.xml") }
            }
            var results: [VASTResolution] = []
            for try await result in group {
                results.append(result)
            }
            return results
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 == expected })
    }
}
