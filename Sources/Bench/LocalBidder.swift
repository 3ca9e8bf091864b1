import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// An OpenRTB bidder on loopback for `bench openrtb`: every bid request gets the same native
/// bid at once, so what is measured is the daemon's auction, not a bidder's.
public final class LocalBidder: Sendable {
    public let port: Int
    private let group: ServiceGroup

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
        let escaped = adm.replacingOccurrences(of: "\"", with: "\\\"")
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
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: Logger(label: "bench-bidder", factory: { _ in SwiftLogNoOpLogHandler() }))
        // Stopped by a graceful shutdown, never by cancellation: a response still being
        // written when the server goes (a slow answer the client gave up on) must finish,
        // or NIO's writer traps.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [app], gracefulShutdownSignals: [], cancellationSignals: [],
                logger: Logger(label: "bench-bidder", factory: { _ in SwiftLogNoOpLogHandler() })))
        self.group = group
        Task { try await group.run() }
        var found = 0
        for await port in ports { found = port }
        guard found > 0 else { throw BenchFailure("the local bidder did not start") }
        port = found
    }

    public var endpoint: String { "http://127.0.0.1:\(port)/bid" }

    deinit {
        let group = self.group
        Task { await group.triggerGracefulShutdown() }
    }
}
