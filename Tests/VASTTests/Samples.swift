import Foundation

@testable import VAST

/// The sample files written by others (`Tests/Fixtures/samples`, a verbatim copy of the
/// project's shared samples, with their MANIFESTs).
enum Samples {
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 {  // Samples.swift, VASTTests
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("Fixtures/samples")
    }()

    /// Where the stub fetcher serves the `vast/` samples, so relative VASTAdTagURIs resolve to sibling files.
    static let vastBaseURL = "https://samples.test/vast/"

    /// The URL a test uses for a `vast/` sample, e.g. "vast-client-js/wrapper-a.xml".
    static func vastURL(_ path: String) -> String {
        vastBaseURL + path
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(path)))
    }

    static func vast(_ path: String) throws -> [UInt8] {
        try bytes("vast/" + path)
    }

    /// `seatbid[seat].bid[0].adm` of an OpenRTB sample response.
    static func openRTBAdm(_ file: String, seat: Int = 0) throws -> [UInt8] {
        let json = try JSONSerialization.jsonObject(with: Data(try bytes("openrtb/" + file)))
        guard let response = json as? [String: Any], let seatbids = response["seatbid"] as? [[String: Any]],
            let bids = seatbids[seat]["bid"] as? [[String: Any]], let adm = bids[0]["adm"] as? String
        else { throw SampleError.missing(file) }
        return Array(adm.utf8)
    }

    /// `assets[0].video.vasttag` of a Native 1.2 sample response.
    static func nativeVideoVASTTag(_ file: String) throws -> [UInt8] {
        let json = try JSONSerialization.jsonObject(with: Data(try bytes("native/" + file)))
        guard let response = json as? [String: Any], let assets = response["assets"] as? [[String: Any]],
            let video = assets.first?["video"] as? [String: Any], let tag = video["vasttag"] as? String
        else { throw SampleError.missing(file) }
        return Array(tag.utf8)
    }

    enum SampleError: Error {
        case missing(String)
    }
}

/// URLs fetched by a `StubFetcher`, in order.
actor FetchLog {
    private(set) var urls: [String] = []

    func record(_ url: String) {
        urls.append(url)
    }
}

/// Serves the sample files and synthetic documents instead of the network, and records every fetch.
struct StubFetcher: Sendable {
    struct NotFound: Error, CustomStringConvertible {
        var url: String
        var description: String { "404 for \(url)" }
    }

    /// Synthetic documents by URL; they win over sample files.
    var documents: [String: String] = [:]
    let log = FetchLog()

    func fetch(_ url: String) async throws -> [UInt8] {
        await log.record(url)
        if let document = documents[url] {
            return Array(document.utf8)
        }
        guard let path = Self.samplePath(url) else { throw NotFound(url: url) }
        do {
            return try Samples.vast(path)
        } catch {
            throw NotFound(url: url)  // vpaid2.xml: a dangling reference
        }
    }

    private static func samplePath(_ url: String) -> String? {
        switch url {
        case "test://Pubads_Inline_Model-test":
            return "realeyes-gam/Pubads_Inline_Model-test.xml"
        case "https://raw.githubusercontent.com/InteractiveAdvertisingBureau/VAST_Samples/master/"
            + "VAST%204.2%20Samples/Inline_Companion_Tag-test.xml":
            return "vast42-iab-inline-companion.xml"
        default:
            guard url.hasPrefix(Samples.vastBaseURL) else { return nil }
            return String(url.dropFirst(Samples.vastBaseURL.count))
        }
    }

    func resolver(
        preferences: VASTMediaPreferences = .init(), maximumWrapperDepth: Int = 5
    ) -> VASTResolver {
        let fetcher = self
        return VASTResolver(preferences: preferences, maximumWrapperDepth: maximumWrapperDepth) { url in
            try await fetcher.fetch(url)
        }
    }

    /// Resolves the `vast/` sample at `path` as a tag fetched from its sample URL.
    func resolveSample(_ path: String, preferences: VASTMediaPreferences = .init()) async throws -> VASTResolution {
        try await resolver(preferences: preferences).resolve(tagURL: Samples.vastURL(path))
    }
}

extension VASTResolution {
    /// The creative of `.ad`, nil otherwise.
    var creative: VASTCreative? {
        if case .ad(let creative, _) = self { return creative }
        return nil
    }

    /// The skipped ads of `.ad`, nil otherwise.
    var discarded: [VASTError]? {
        if case .ad(_, let discarded) = self { return discarded }
        return nil
    }

    /// The error of `.failure`, nil otherwise.
    var error: VASTError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Small VAST documents written in the tests.
enum Synthetic {
    static func inLine(
        id: String = "inline", skipOffset: String? = nil, duration: String = "00:00:20", tracking: String = "",
        mediaURL: String = "https://cdn.test/video.mp4", error: String = "https://t.test/inline-error"
    ) -> String {
        let skip = skipOffset.map { " skipoffset=\"\($0)\"" } ?? ""
        return """
            <VAST version="4.2" xmlns="http://www.iab.com/VAST">
              <Ad id="\(id)">
                <InLine>
                  <AdSystem>test</AdSystem>
                  <AdTitle>synthetic</AdTitle>
                  <Error><![CDATA[\(error)]]></Error>
                  <Impression><![CDATA[https://t.test/inline-impression]]></Impression>
                  <Creatives>
                    <Creative>
                      <Linear\(skip)>
                        <Duration>\(duration)</Duration>
                        <TrackingEvents>\(tracking)</TrackingEvents>
                        <MediaFiles>
                          <MediaFile delivery="progressive" type="video/mp4" width="1280" height="720">
                            <![CDATA[\(mediaURL)]]>
                          </MediaFile>
                        </MediaFiles>
                      </Linear>
                    </Creative>
                  </Creatives>
                </InLine>
              </Ad>
            </VAST>
            """
    }

    static func wrapper(to uri: String, error: String, attributes: String = "") -> String {
        """
        <VAST version="3.0">
          <Ad id="wrapper">
            <Wrapper\(attributes)>
              <AdSystem>test</AdSystem>
              <VASTAdTagURI><![CDATA[ \(uri) ]]></VASTAdTagURI>
              <Error>\(error)</Error>
              <Impression>\(error)-impression</Impression>
            </Wrapper>
          </Ad>
        </VAST>
        """
    }
}
