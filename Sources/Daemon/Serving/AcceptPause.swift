import Logging
import NIOCore
import Timing

/// On the listening socket: when accepting fails (out of file descriptors, out of memory),
/// stops reading for `pause` and says so once a minute. NIO's own `AcceptBackoffHandler`
/// delays only the next `read()`, and a listening channel whose accept fails before any
/// succeeds keeps its read pending, so it would call accept again at once, again and again,
/// spinning a core. Turning `autoRead` off takes the socket out of the poll set until the
/// pause ends.
final class AcceptPause: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    let pause: TimeAmount
    let logger: Logger
    let log: RateLimitedLog<ContinuousClock>
    private var paused = false

    init(pause: TimeAmount, logger: Logger, log: RateLimitedLog<ContinuousClock>) {
        self.pause = pause
        self.logger = logger
        self.log = log
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is IOError else {
            context.fireErrorCaught(error)
            return
        }
        if log.shouldLog("accept") {
            logger.error(
                "cannot accept connections; pausing accepts (logged once a minute)",
                metadata: ["error": "\(error)", "pause_ms": "\(pause.nanoseconds / 1_000_000)"])
        }
        guard !paused else { return }
        paused = true
        let channel = context.channel
        channel.setOption(ChannelOptions.autoRead, value: false).assumeIsolated().whenComplete { _ in
            channel.eventLoop.assumeIsolated().scheduleTask(in: self.pause) {
                self.paused = false
                channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
            }
        }
    }
}

@available(*, unavailable)
extension AcceptPause: Sendable {}
