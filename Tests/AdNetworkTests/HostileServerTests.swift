import Adapters
import Foundation
import Logging
import Mediation
import SharedTypes
import StateStore
import TestSupport
import Testing
import Timing

@testable import Daemon

/// What a remote server sends that must not hurt the daemon: documents nested far deeper than
/// any real one (each refused naming the bound, never read by recursion the input controls)
/// and ads far larger than asked (refused with their loss reason, never stored).
struct HostileServerTests {
    /// A VAST document of about 350 KB whose elements nest `depth` deep: under the 4 MiB cap,
    /// and deep enough to overflow a concurrency thread's stack if read recursively.
    static func deepVAST(_ depth: Int = 50_000) -> String {
        "<VAST version=\"4.0\">" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
            + "</VAST>"
    }

    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func services() -> AdNetworkServices {
        let fetcher = HTTPAdFetcher()
        return AdNetworkServices(
            fetcher: fetcher,
            trackers: TrackerQueue(
                fetcher: fetcher, outbox: SQLiteTrackerOutbox(StateDatabase()),
                clock: WallClock(clock: ContinuousClock()), settings: .init(retryDelay: .milliseconds(20)),
                logger: logger
            ).started())
    }

    static func vastFailure(tag: String, services: AdNetworkServices) async throws -> AdLoadError {
        let network = try await VASTAdNetwork(
            setup: NoOptions(), context: AdNetworkContext(logger: logger, services: services))
        do {
            _ = try await network.loadRewardedAd(NetworkAdRequest(adUnit: "u", parameter: tag, currency: "USD"))
        } catch {
            return error
        }
        throw DaemonFailure("the deep document loaded")
    }

    @Test func aVASTTagNestedFiftyThousandDeepIsRefusedNamingTheBound() async throws {
        let server = try await FakeAdServer()
        server.answer("/deep", .init(body: Array(Self.deepVAST().utf8), contentType: "application/xml"))
        let error = try await Self.vastFailure(tag: server.url("/deep"), services: Self.services())
        #expect(error.code == .networkError)
        #expect(error.message.contains("VAST error 100"))
        #expect(error.message.contains("deeper than 256 levels (limits.max_document_depth)"))
    }

    @Test func aWrapperWhoseTargetNestsFiftyThousandDeepIsRefusedAndItsErrorURLFires() async throws {
        let server = try await FakeAdServer()
        server.answer("/deep", .init(body: Array(Self.deepVAST().utf8), contentType: "application/xml"))
        server.answer("/error", .init(status: 200, contentType: "image/gif"))
        let wrapper = """
            <VAST version="4.0"><Ad id="w"><Wrapper><AdSystem>x</AdSystem>\
            <Error><![CDATA[\(server.url("/error"))?code=[ERRORCODE]]]></Error>\
            <VASTAdTagURI><![CDATA[\(server.url("/deep"))?key=secret]]></VASTAdTagURI></Wrapper></Ad></VAST>
            """
        server.answer("/wrapper", .init(body: Array(wrapper.utf8), contentType: "application/xml"))
        let services = Self.services()
        let error = try await Self.vastFailure(tag: server.url("/wrapper"), services: services)
        #expect(error.message.contains("deeper than 256 levels"))
        #expect(!error.message.contains("secret"), "a wrapper target's query is never shown: \(error.message)")
        try await waitUntil { !server.requests("/error").isEmpty }
        _ = services  // its tracker queue sends the error URL
        #expect(server.requests("/error").first?.query == "code=100")
    }

    @Test func anOpenRTBVideoAdmNestedFiftyThousandDeepIsRefused() async throws {
        let bidder = try await OpenRTBSampleTests.Bidder()
        let response: [String: Any] = [
            "id": "r", "cur": "USD",
            "seatbid": [
                ["seat": "s", "bid": [["id": "b", "impid": "1", "price": 2.5, "adm": Self.deepVAST(), "mtype": 2]]]
            ],
        ]
        let answer = FakeAdServer.Answer(body: Array(try JSONSerialization.data(withJSONObject: response)))
        let error = try OpenRTBSampleTests.failure(await bidder.load(answer, format: .rewarded))
        #expect(error.message.contains("deeper than 256 levels"))
    }

    @Test func aBidResponseNestedFiftyThousandDeepIsRefusedBeforeItIsDecoded() async throws {
        let bidder = try await OpenRTBSampleTests.Bidder()
        let deep = String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)
        let body = #"{"id":"r","seatbid":[],"ext":"# + deep + "}"
        let error = try OpenRTBSampleTests.failure(await bidder.load(.init(body: Array(body.utf8))))
        #expect(
            error
                == AdLoadError(
                    .networkError,
                    "the bid response nests arrays and objects deeper than 256 levels (limits.max_document_depth)"))
        // Brackets inside strings are text, not nesting.
        let text = #"{"id":"r","seatbid":[],"ext":{"note":""# + deep + #""}}"#
        #expect(try OpenRTBSampleTests.failure(await bidder.load(.init(body: Array(text.utf8)))).code == .noFill)
    }

    /// The native request asks a title of at most 90 characters: a bid whose title is 3 MB is
    /// refused with loss reason 3, and the lower bid that fits wins.
    @Test func aNativeTitleFarOverItsLenLosesWithReason3AndALowerBidThatFitsWins() async throws {
        let bidder = try await OpenRTBSampleTests.Bidder()
        bidder.server.answer("*", .init(status: 200, contentType: "image/gif"))
        func adm(_ title: String) throws -> String {
            let native: [String: Any] = [
                "ver": "1.2", "link": ["url": "https://example.com/go"],
                "assets": [["id": 1, "title": ["text": title]]],
            ]
            return String(decoding: try JSONSerialization.data(withJSONObject: native), as: UTF8.self)
        }
        func bid(_ id: String, _ price: Double, _ title: String) throws -> [String: Any] {
            [
                "id": id, "impid": "1", "price": price, "adm": try adm(title), "mtype": 4,
                "lurl": bidder.server.url("/loss/\(id)?code=${AUCTION_LOSS}"),
            ]
        }
        let huge = String(repeating: "x", count: 3_000_000)
        let response: [String: Any] = [
            "id": "r", "cur": "USD",
            "seatbid": [["seat": "s", "bid": [try bid("big", 9, huge), try bid("fits", 2, "A title that fits")]]],
        ]
        let (_, native) = try OpenRTBSampleTests.native(
            await bidder.load(.init(body: Array(try JSONSerialization.data(withJSONObject: response)))))
        #expect(native.headline == "A title that fits")
        try await waitUntil { !bidder.server.requests("/loss/big").isEmpty }
        #expect(bidder.server.requests("/loss/big").first?.query == "code=3")

        // Alone, it fails the load naming the bound; a title under max_ad_bytes but over its
        // len, naming the asset.
        let alone: [String: Any] = [
            "id": "r", "cur": "USD", "seatbid": [["seat": "s", "bid": [try bid("big", 9, huge)]]],
        ]
        let whole = try OpenRTBSampleTests.failure(
            await bidder.load(.init(body: Array(try JSONSerialization.data(withJSONObject: alone)))))
        #expect(whole.message.hasSuffix("over limits.max_ad_bytes (2097152)"))
        let long = String(repeating: "y", count: 91)
        let over: [String: Any] = [
            "id": "r", "cur": "USD", "seatbid": [["seat": "s", "bid": [try bid("long", 9, long)]]],
        ]
        let error = try OpenRTBSampleTests.failure(
            await bidder.load(.init(body: Array(try JSONSerialization.data(withJSONObject: over)))))
        #expect(error.code == .networkError)
        #expect(error.message.contains("asset 1 title is 91 characters, over the 90 the request asked (len)"))
    }

    @Test func theDepthCheckCountsOnlyBracketsOutsideStrings() {
        #expect(JSONNesting.isWithin(2, Array(#"{"a":[1,{"b":"[[[[{{{"}]}"#.utf8)) == false)
        #expect(JSONNesting.isWithin(3, Array(#"{"a":[1,{"b":"[[[[{{{\"[["}]}"#.utf8)))
        #expect(JSONNesting.isWithin(1, Array(#"[[1]]"#.utf8)) == false)
        #expect(
            JSONNesting.isWithin(
                256, Array((String(repeating: "[", count: 256) + String(repeating: "]", count: 256)).utf8)))
    }
}
