import NIOCore
import NIOHTTP1

/// Answers a connection refused over a cap with its 503 as soon as it is active, on the event
/// loop, through NIO's response encoder, and closes it: a flood of refused connections costs
/// no task, no Hummingbird pipeline and no read.
final class RefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = HTTPServerResponsePart

    private let failure: APIError
    private var answered = false

    init(_ failure: APIError) {
        self.failure = failure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context)
        context.fireChannelActive()
    }

    /// What the client sends is not read: it is answered already.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func answer(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let answer = failure.closingAnswer()
        context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil)
        context.writeAndClose(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
