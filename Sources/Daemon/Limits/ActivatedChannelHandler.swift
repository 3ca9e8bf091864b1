import NIOCore

/// A channel handler with work to do once its channel is active, whether it was added to an
/// active channel or the channel became active after: both lead to `channelIsActive`.
protocol ActivatedChannelHandler: ChannelInboundHandler {
    func channelIsActive(context: ChannelHandlerContext)
}

extension ActivatedChannelHandler {
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { channelIsActive(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        channelIsActive(context: context)
        context.fireChannelActive()
    }
}
