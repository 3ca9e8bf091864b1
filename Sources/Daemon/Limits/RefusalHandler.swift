import NIOCore
import NIOEmbedded
import NIOHTTP1

/// Answers a connection refused over a cap with its 503 as soon as it is active, on the event
/// loop, and closes it: a flood of refused connections costs no task, no Hummingbird pipeline,
/// no read and no encoding (the answer's bytes are made once, see `Refusals`).
final class RefusalHandler: ActivatedChannelHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: ByteBuffer
    private var answered = false

    init(_ answer: ByteBuffer) {
        self.answer = answer
    }

    /// What the client sends is not read: it is answered already.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelIsActive(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        context.writeAndClose(wrapOutboundOut(answer), promise: nil)
    }
}

/// The 503 answers of the connection caps, as the bytes on the wire: the caps are fixed at
/// start, so each answer is the same every time. Written once through NIO's own response
/// encoder (on an embedded channel), never by hand.
struct Refusals: Sendable {
    let overTotal: ByteBuffer
    let overPeer: ByteBuffer

    init(limits: Limits) {
        overTotal = Self.wire(
            Self.failure(
                "the daemon has its \(limits.maxConnections) connections open (limits.max_connections); try again later"
            ))
        overPeer = Self.wire(
            Self.failure(
                "this uid has \(limits.maxConnectionsPerPeer) connections open (limits.max_connections_per_peer); close one first"
            ))
    }

    /// The answer to a connection over `cap`.
    func answer(over cap: ClientLimits.Cap) -> ByteBuffer {
        cap == .maxConnections ? overTotal : overPeer
    }

    private static func failure(_ message: String) -> APIError {
        APIError(
            .serviceUnavailable, .tooManyConnections, message,
            headers: [.connection: "close", .retryAfter: "1"])
    }

    /// `failure`'s closing answer as NIO's `HTTPResponseEncoder` writes it.
    private static func wire(_ failure: APIError) -> ByteBuffer {
        let channel = EmbeddedChannel(handler: HTTPResponseEncoder())
        let answer = failure.closingAnswer()
        _ = try? channel.writeOutbound(HTTPServerResponsePart.head(answer.head))
        _ = try? channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(answer.body)))
        _ = try? channel.writeOutbound(HTTPServerResponsePart.end(nil))
        var bytes = ByteBuffer()
        while var part = try? channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&part) }
        _ = try? channel.finish()
        return bytes
    }
}
