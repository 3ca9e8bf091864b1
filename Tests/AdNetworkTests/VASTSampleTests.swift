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

/// The `vast` network over real HTTP against every file of `../shared/samples/vast`, served by a
/// local server (its example.com trackers pointed at that server): each loads, or fails with
/// its VAST error code and has its error URL fired.
struct VASTSampleTests {
    static let files = [
        "vast42-iab-inline-linear.xml", "vast42-iab-inline-companion.xml", "vast42-iab-wrapper.xml",
        "vast42-iab-icon-click-fallbacks.xml", "vast41-iab-inline-simple.xml", "vast41-iab-audio-daast.xml",
        "vast40-iab-inline-nonlinear.xml", "vast40-realeyes-inline-linear-two-icons-verification.xml",
        "vast30-iab-inline-linear.xml", "vast20-iab-inline-linear-regular.xml", "vast20-iab-inline-linear-vpaid.xml",
        "sokil-vast40-broken-unknown-ad-child.xml", "sokil-vast30-error-only-no-ad.xml",
        "pbs-eskimi-adm-empty-vast40.xml",
        "realeyes-gam/Pubads_Wrapper_Model-test.xml", "realeyes-gam/Pubads_Inline_Model-test.xml",
        "vast-client-js/sample.xml", "vast-client-js/inline-linear.xml", "vast-client-js/wrapper-a.xml",
        "vast-client-js/wrapper-b.xml", "vast-client-js/wrapper-empty.xml", "vast-client-js/wrapper-multiple-ads.xml",
        "vast-client-js/vpaid.xml", "vast-client-js/empty-no-creative.xml", "vast-client-js/empty-no-ad.xml",
        "vast-client-js/invalid-xmlfile.xml", "vast-client-js/outdated-vast.xml",
    ]

    /// "load", "no_fill", or the VAST error code; and the local error path that must fire.
    static let expected: [String: (outcome: String, errorPath: String?)] = [
        "vast41-iab-audio-daast.xml": ("200", "/error"),
        "vast40-iab-inline-nonlinear.xml": ("201", "/error"),
        "vast20-iab-inline-linear-vpaid.xml": ("403", "/trackingurl/error"),
        "sokil-vast30-error-only-no-ad.xml": ("no_fill", nil),
        "pbs-eskimi-adm-empty-vast40.xml": ("no_fill", nil),
        // Its wrapper's URI is test://..., which no HTTP client fetches.
        "realeyes-gam/Pubads_Wrapper_Model-test.xml": ("301", nil),
        "vast-client-js/wrapper-empty.xml": ("303", "/wrapper-empty_wrapper-error"),
        "vast-client-js/vpaid.xml": ("403", nil),
        "vast-client-js/empty-no-creative.xml": ("101", "/empty-no-creative_inline-error"),
        "vast-client-js/empty-no-ad.xml": ("no_fill", "/empty-no-ad"),
        "vast-client-js/invalid-xmlfile.xml": ("100", nil),
        "vast-client-js/outdated-vast.xml": ("102", nil),
    ]

    @Test func everyVASTSampleLoadsOrFailsWithItsCodeOverHTTP() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        let companion =
            "https://raw.githubusercontent.com/InteractiveAdvertisingBureau/VAST_Samples/master/VAST%204.2%20Samples/Inline_Companion_Tag-test.xml"
        for file in Self.files {
            let text = String(decoding: try FakeAdServer.sample("vast/\(file)"), as: UTF8.self)
                .replacingOccurrences(of: "https://example.com", with: server.url(""))
                .replacingOccurrences(of: "http://example.com", with: server.url(""))
                .replacingOccurrences(of: companion, with: server.url("/vast/vast42-iab-inline-companion.xml"))
            server.answer("/vast/\(file)", .init(body: Array(text.utf8), contentType: "application/xml"))
        }
        let fetcher = HTTPAdFetcher()
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let services = AdNetworkServices(
            fetcher: fetcher,
            trackers: TrackerQueue(
                fetcher: fetcher, outbox: SQLiteTrackerOutbox(StateDatabase()),
                clock: WallClock(clock: ContinuousClock()),
                settings: .init(retryDelay: .milliseconds(10)), logger: logger
            ).started())
        let network = try await VASTAdNetwork(
            setup: NoOptions(), context: AdNetworkContext(logger: logger, services: services))
        for file in Self.files {
            let expected = Self.expected[file] ?? ("load", nil)
            let before = expected.errorPath.map { server.requests($0).count } ?? 0
            let outcome: String
            do {
                let ad = try await network.loadRewardedAd(
                    NetworkAdRequest(adUnit: "u", parameter: server.url("/vast/\(file)"), currency: "USD"))
                #expect(ad.video?.mediaURL.isEmpty == false && (ad.video?.durationMilliseconds ?? 0) > 0, "\(file)")
                outcome = "load"
            } catch {
                outcome =
                    error.code == .noFill
                    ? "no_fill" : String(error.message.dropFirst("VAST error ".count).prefix(3))
            }
            #expect(outcome == expected.outcome, "\(file)")
            if let path = expected.errorPath {
                _ = try await eventually { server.requests(path).count > before ? true : nil }
            }
        }
    }
}

/// The copy in `Tests/Fixtures/samples` is the project's shared samples, byte for byte, where
/// those are beside the repository (a clone elsewhere has only the copy).
@Test(.enabled(if: FileManager.default.fileExists(atPath: sharedSamples.path)))
func theVendoredSamplesAreTheSharedOnes() throws {
    func files(_ root: URL) throws -> [String: Data] {
        var found: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            found[String(url.path.dropFirst(root.path.count))] = try Data(contentsOf: url)
        }
        return found
    }
    var vendored = try files(FakeAdServer.samples)
    vendored["/README.md"] = nil
    let shared = try files(sharedSamples)
    #expect(vendored.keys.sorted() == shared.keys.sorted())
    for (path, data) in shared { #expect(vendored[path] == data, "\(path)") }
}

/// `../shared/samples` beside the repository.
let sharedSamples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/samples")
