import FoundationEssentials
import Hummingbird
import NIOCore

/// An OpenRTB bidder on loopback for `bench openrtb`: every bid request to `/bid` gets the same
/// native bid at once, so what is measured is the daemon's auction, not a bidder's. For the
/// auction against the waterfall, `/bid/after/MS` bids and `/nobid/after/MS` answers 204, each
/// after MS milliseconds.
public final class LocalBidder: Sendable {
    private let server: LoopbackServer

    /// A Native 1.2 bid with a title, an image, an icon, a body, a call to action and trackers.
    static let response: String = {
        let adm = #"""
            {"ver":"1.2","assets":[{"id":1,"title":{"text":"A bench ad"}},\#
            {"id":2,"img":{"url":"http://127.0.0.1:9/main.jpg","w":1200,"h":628}},\#
            {"id":3,"img":{"url":"http://127.0.0.1:9/icon.png","w":80,"h":80}},\#
            {"id":4,"data":{"value":"The body of the bench ad"}},{"id":6,"data":{"value":"Open"}}],\#
            "link":{"url":"https://example.com/landing","clicktrackers":["http://127.0.0.1:9/click"]},\#
            "eventtrackers":[{"event":1,"method":1,"url":"http://127.0.0.1:9/imp"}]}
            """#
        let escaped = adm.replacing("\"", with: "\\\"")
        return
            #"{"id":"bench","cur":"USD","seatbid":[{"seat":"bench","bid":[{"id":"1","impid":"1","price":1.5,"mtype":4,"adm":"\#(escaped)"}]}]}"#
    }()

    public init() async throws {
        let router = Router()
        let body = ByteBuffer(string: Self.response)
        router.post("/bid") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 20)
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
        }
        for (path, bids) in [("/bid/after/:ms", true), ("/nobid/after/:ms", false)] {
            router.post(RouterPath(path)) { request, context -> Response in
                _ = try await request.body.collect(upTo: 1 << 20)
                let delay = context.parameters.get("ms", as: Int.self) ?? 0
                try await Task.sleep(for: .milliseconds(delay))
                guard bids else { return Response(status: .noContent) }
                return Response(
                    status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
            }
        }
        server = try await LoopbackServer(router: router, name: "the local bidder")
    }

    public var endpoint: String { server.url("/bid") }

    /// A bidder that bids after `milliseconds`, or (`bids: false`) answers no bid after them.
    public func endpoint(after milliseconds: Int, bids: Bool = true) -> String {
        server.url("/\(bids ? "bid" : "nobid")/after/\(milliseconds)")
    }
}
