import Testing

@testable import VAST

/// Wrapper chains written in the test: limits, loops, fetch failures and broken targets.
@Suite struct VASTWrapperChainTests {
    static func url(_ name: String) -> String {
        "https://w.test/\(name)"
    }

    /// Wrappers 1…count, each pointing at the next, the last at an inline.
    static func chain(of count: Int) -> StubFetcher {
        var documents: [String: String] = [:]
        for index in 1...count {
            let next = index == count ? url("inline") : url(String(index + 1))
            documents[url(String(index))] = Synthetic.wrapper(to: next, error: url("error-\(index)"))
        }
        documents[url("inline")] = Synthetic.inLine()
        return StubFetcher(documents: documents)
    }

    @Test func fiveWrappersAreWithinTheLimit() async throws {
        let fetcher = Self.chain(of: 5)
        let resolution = try await fetcher.resolver().resolve(tagURL: Self.url("1"))
        let creative = try #require(resolution.creative)
        #expect(creative.wrapperDepth == 5)
        #expect(creative.mediaFile.url == "https://cdn.test/video.mp4")
        #expect(creative.impressions.count == 6)
        #expect(creative.errorURLs == (1...5).map { Self.url("error-\($0)") } + ["https://t.test/inline-error"])
        let fetched = await fetcher.log.urls
        #expect(fetched.count == 6)
    }

    @Test func sixWrappersAre302WithEveryErrorURLSoFar() async throws {
        let fetcher = Self.chain(of: 6)
        let resolution = try await fetcher.resolver().resolve(tagURL: Self.url("1"))
        let error = try #require(resolution.error)
        #expect(error.code == .wrapperLimit)
        #expect(error.message == "wrapper depth 6 exceeds the limit of 5 at https://w.test/6")
        #expect(error.errorURLs == (1...6).map { Self.url("error-\($0)") })
        // The sixth wrapper's target is never fetched.
        let fetched = await fetcher.log.urls
        #expect(fetched == (1...6).map { Self.url(String($0)) })
    }

    @Test func aLoopIs302() async throws {
        let fetcher = StubFetcher(documents: [
            Self.url("a"): Synthetic.wrapper(to: Self.url("b"), error: Self.url("a-error")),
            Self.url("b"): Synthetic.wrapper(to: "a", error: Self.url("b-error")),
        ])
        let resolution = try await fetcher.resolver().resolve(tagURL: Self.url("a"))
        let error = try #require(resolution.error)
        #expect(error.code == .wrapperLimit)
        #expect(error.message.contains("loop"))
        #expect(error.errorURLs == [Self.url("a-error"), Self.url("b-error")])
        let fetched = await fetcher.log.urls
        #expect(fetched == [Self.url("a"), Self.url("b")])
    }

    @Test func aWrapperWhoseFetchThrowsIs301() async throws {
        let fetcher = StubFetcher(documents: [
            Self.url("a"): Synthetic.wrapper(to: Self.url("gone"), error: Self.url("a-error"))
        ])
        let resolution = try await fetcher.resolver().resolve(tagURL: Self.url("a"))
        let error = try #require(resolution.error)
        #expect(error.code == .wrapperTimeout)
        #expect(error.message.contains("https://w.test/gone"))
        #expect(error.errorURLs == [Self.url("a-error")])
    }

    @Test func theFirstTagsFetchFailureIsThrown() async throws {
        let resolver = StubFetcher().resolver()
        let failure = await #expect(throws: VASTFetchFailure.self) {
            try await resolver.resolve(tagURL: Self.url("nothing-here"))
        }
        #expect(failure?.url == Self.url("nothing-here"))
        #expect(failure?.reason == "404 for https://w.test/nothing-here")
    }

    @Test func wrapperTargetsThatAreNotXMLOrNotVAST2to4KeepTheirCodes() async throws {
        let fetcher = StubFetcher(documents: [
            Self.url("to-json"): Synthetic.wrapper(
                to: Samples.vastURL("vast-client-js/invalid-xmlfile.xml"), error: Self.url("e1")),
            Self.url("to-vast1"): Synthetic.wrapper(
                to: Samples.vastURL("vast-client-js/outdated-vast.xml"), error: Self.url("e2")),
            Self.url("to-truncated"): Synthetic.wrapper(to: Self.url("truncated"), error: Self.url("e3")),
            Self.url("truncated"): String(Synthetic.inLine().prefix(200)),
        ])
        let json = try await fetcher.resolver().resolve(tagURL: Self.url("to-json"))
        #expect(json.error?.code == .xmlParse)
        #expect(json.error?.errorURLs == [Self.url("e1")])
        let vast1 = try await fetcher.resolver().resolve(tagURL: Self.url("to-vast1"))
        #expect(vast1.error?.code == .unsupportedVersion)
        #expect(vast1.error?.errorURLs == [Self.url("e2")])
        let truncated = try await fetcher.resolver().resolve(tagURL: Self.url("to-truncated"))
        #expect(truncated.error?.code == .xmlParse)
    }

    @Test func followAdditionalWrappersFalseForbidsASecondWrapper() async throws {
        let fetcher = StubFetcher(documents: [
            Self.url("a"): Synthetic.wrapper(
                to: Self.url("b"), error: Self.url("a-error"), attributes: " followAdditionalWrappers=\"false\""),
            Self.url("b"): Synthetic.wrapper(to: Self.url("inline"), error: Self.url("b-error")),
            Self.url("c"): Synthetic.wrapper(
                to: Self.url("inline"), error: Self.url("c-error"), attributes: " followAdditionalWrappers=\"0\""),
            Self.url("inline"): Synthetic.inLine(),
        ])
        let forbidden = try await fetcher.resolver().resolve(tagURL: Self.url("a"))
        #expect(forbidden.error?.code == .wrapperLimit)
        #expect(forbidden.error?.errorURLs == [Self.url("a-error"), Self.url("b-error")])
        let allowed = try await fetcher.resolver().resolve(tagURL: Self.url("c"))
        #expect(allowed.creative?.wrapperDepth == 1)
    }

    @Test func relativeAndProtocolRelativeURIs() {
        #expect(
            VASTResolver.resolve(" wrapper-b.xml ", against: "https://h.test/x/wrapper-a.xml")
                == "https://h.test/x/wrapper-b.xml")
        #expect(VASTResolver.resolve("/root.xml", against: "https://h.test/x/a.xml") == "https://h.test/root.xml")
        #expect(VASTResolver.resolve("//cdn.test/v.xml", against: "http://h.test/a.xml") == "https://cdn.test/v.xml")
        #expect(
            VASTResolver.resolve("test://Pubads_Inline_Model-test", against: nil) == "test://Pubads_Inline_Model-test")
        #expect(VASTResolver.resolve("b.xml", against: nil) == nil)
        #expect(VASTResolver.resolve("  ", against: "https://h.test/") == nil)
    }

    @Test func aRelativeWrapperURIInAnAdmWithoutURLIs301WithoutFetching() async throws {
        let fetcher = StubFetcher()
        let adm = Synthetic.wrapper(to: "b.xml", error: Self.url("a-error"))
        let resolution = await fetcher.resolver().resolve(document: Array(adm.utf8), url: nil)
        #expect(resolution.error?.code == .wrapperTimeout)
        #expect(resolution.error?.errorURLs == [Self.url("a-error")])
        let fetched = await fetcher.log.urls
        #expect(fetched == [])
    }

    @Test func rootErrorURLsJoinTheFailure() async throws {
        let adm = """
            <VAST version="3.0"><Error>https://t.test/root-error</Error>
            <Ad id="x"><InLine><Error>https://t.test/ad-error</Error>
            <Creatives><Creative><NonLinearAds/></Creative></Creatives></InLine></Ad></VAST>
            """
        let resolution = await StubFetcher().resolver().resolve(document: Array(adm.utf8), url: nil)
        #expect(resolution.error?.code == .unexpectedLinearity)
        #expect(resolution.error?.errorURLs == ["https://t.test/ad-error", "https://t.test/root-error"])
    }
}
