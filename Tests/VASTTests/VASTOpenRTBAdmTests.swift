import Testing

@testable import VAST

/// VAST that arrives as an OpenRTB bid's `adm` (the samples in `shared/samples/openrtb/` and `native/`).
@Suite struct VASTOpenRTBAdmTests {
    static func resolve(_ adm: [UInt8]) async -> VASTResolution {
        await StubFetcher().resolver().resolve(document: adm, url: nil)
    }

    @Test func spec632InlineAdmPlays() async throws {
        let resolution = await Self.resolve(try Samples.openRTBAdm("ortb26-spec-6.3.2-response-vast2-inline-adm.json"))
        let creative = try #require(resolution.creative)
        #expect(creative.adID == "12345")
        #expect(creative.adTitle == "Sample VAST")
        #expect(
            creative.mediaFile
                == VASTMediaFile(
                    url: "http://sample.com/video.mp4", mimeType: "video/mp4", width: 640, height: 480, bitrate: 256,
                    delivery: "progressive"))
        #expect(creative.durationMilliseconds == 30000)
        #expect(creative.impressions == ["http://sample.com"])
        // The space inside the spec's URL is left as written.
        #expect(creative.clickThrough == "http://sample.com/openrtb test")
    }

    @Test func sovrnSingleQuotedVAST3Plays() async throws {
        let resolution = await Self.resolve(
            try Samples.openRTBAdm("pbs-sovrnxsp-app-video-response-vast3-single-quotes.json"))
        let creative = try #require(resolution.creative)
        #expect(creative.mediaFile.url == "https://ads.smrtb.com/demo/SOVRN_30sec_house_ad_1.mp4")
        #expect(creative.mediaFile.width == 1920)
        #expect(creative.impressions == [])
        #expect(creative.durationMilliseconds == 30000)
    }

    @Test func adheseEmptyMediaFileURLIs403() async throws {
        let resolution = await Self.resolve(
            try Samples.openRTBAdm("pbs-adhese-video-response-empty-mediafile-url.json"))
        let error = try #require(resolution.error)
        #expect(error.code == .noSupportedMediaFile)
        #expect(
            error.errorURLs == [
                "https://ads-demo.adhese.com/track/3140-error//sl290///dtunknown/ogcontrol/"
                    + "II7849444b-2892-4ad0-8bcc-7d410e50d58e/tlall////tm/A2127.68.78.84/?t=1721225407122"
            ])
    }

    @Test func emptyVASTAdmsAreNoAd() async throws {
        let inmobi = await Self.resolve(try Samples.openRTBAdm("pbs-inmobi-app-video-response-empty-vast-adm.json"))
        #expect(inmobi == .noAd(errorURLs: []))
        let native = await Self.resolve(
            try Samples.nativeVideoVASTTag("native12-response-video-asset-empty-vasttag.json"))
        #expect(native == .noAd(errorURLs: []))
    }

    @Test func truncatedPodAdmsAre100() async throws {
        for seat in 0..<2 {
            let resolution = await Self.resolve(
                try Samples.openRTBAdm("ortb26-impl-7.6-pod-structured-response.json", seat: seat))
            #expect(resolution.error?.code == .xmlParse)
        }
        let dynamic = await Self.resolve(try Samples.openRTBAdm("ortb26-impl-7.6-pod-dynamic-response.json"))
        #expect(dynamic.error?.code == .xmlParse)
    }

    @Test func nonVASTAdmIs100() async throws {
        let resolution = await Self.resolve(
            try Samples.openRTBAdm("pbs-openx-rewarded-video-response-mtype2-nonvast-adm.json"))
        #expect(resolution.error?.code == .xmlParse)
    }
}
