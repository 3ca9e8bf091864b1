import NIOCore

/// The head of a connection's pipeline: tells `ConnectionGuard` that bytes arrived, before the
/// parser turns them into a request, so that a request's read timeout starts at its first byte.
final class ByteArrivals: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireUserInboundEventTriggered(ConnectionGuard.BytesArrived())
        context.fireChannelRead(data)
    }
}
