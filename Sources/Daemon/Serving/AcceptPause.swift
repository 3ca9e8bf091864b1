import Logging
import NIOCore
import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// On the listening socket: when accepting fails (out of file descriptors, out of memory) or
/// an accepted connection took the last descriptor beside the `DescriptorReserve`, stops
/// reading for `pause` and says so once a minute. NIO's own `AcceptBackoffHandler` delays only
/// the next `read()`, and a listening channel whose accept fails before any succeeds keeps its
/// read pending, so it would call accept again at once, again and again, spinning a core.
/// Turning `autoRead` off takes the socket out of the poll set until the pause ends. Out of
/// descriptors, it gives back its reserve for the rest of the daemon, and resumes only once it
/// holds the reserve again.
final class AcceptPause: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    let pause: TimeAmount
    let logger: Logger
    let log: RateLimitedLog<ContinuousClock>
    private var paused = false
    private var reserve: DescriptorReserve

    /// The descriptors accepting leaves free for the rest of the daemon: libdispatch's monitor
    /// needs one at a time, the state database a few for its journal.
    static let reserved = 16
    /// How many more must be free beside the reserve before accepting resumes.
    static let margin = 8

    init(pause: TimeAmount, logger: Logger, log: RateLimitedLog<ContinuousClock>) {
        self.pause = pause
        self.logger = logger
        self.log = log
        reserve = DescriptorReserve(count: Self.reserved, margin: Self.margin)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        reserve.release()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        guard !paused else { return }
        // A reserve not taken at the start (too few free then) is taken as soon as it can be.
        guard reserve.isHeld ? !reserve.leavesRoom() : !reserve.take() else { return }
        reserve.release()
        pauseAccepting(context, because: "the connection just accepted took the last descriptor beside the reserve")
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let failure = error as? IOError else {
            context.fireErrorCaught(error)
            return
        }
        if failure.errnoCode == EMFILE || failure.errnoCode == ENFILE { reserve.release() }
        pauseAccepting(context, because: "\(error)")
    }

    private func pauseAccepting(_ context: ChannelHandlerContext, because reason: String) {
        if log.shouldLog("accept") {
            logger.error(
                "cannot accept connections; pausing accepts (logged once a minute)",
                metadata: ["error": "\(reason)", "pause_ms": "\(pause.nanoseconds / 1_000_000)"])
        }
        guard !paused else { return }
        paused = true
        let channel = context.channel
        channel.setOption(ChannelOptions.autoRead, value: false).assumeIsolated().whenComplete { _ in
            self.resumeLater(channel)
        }
    }

    /// Accepts again after the pause, or pauses once more while the reserve cannot be taken.
    private func resumeLater(_ channel: any Channel) {
        channel.eventLoop.assumeIsolated().scheduleTask(in: pause) {
            guard channel.isActive else { return }
            guard self.reserve.take() else { return self.resumeLater(channel) }
            self.paused = false
            channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        }
    }
}

@available(*, unavailable)
extension AcceptPause: Sendable {}
