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
        let body = (try? failure.body()) ?? []
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "\(body.count)")])
        for field in failure.headers { headers.add(name: field.name.rawName, value: field.value) }
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: failure.status.code), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
