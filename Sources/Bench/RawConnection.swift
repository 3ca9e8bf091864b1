import NIOCore
import NIOPosix
import Synchronization
import Timing

/// A connection to the daemon's socket that sends whatever bytes it is given, however wrong,
/// and keeps what comes back: for stalled, malformed and abandoned clients, which an HTTP
/// client cannot be.
public final class RawConnection: Sendable {
    private struct Received {
        var bytes: [UInt8] = []
        var closed = false
    }

    private let channel: any Channel
    private let collector: Collector

    private init(channel: any Channel, collector: Collector) {
        self.channel = channel
        self.collector = collector
    }

    /// Connects to the Unix socket at `path`. A connection that `reads: false` never reads what
    /// the daemon sends, as a stuck client would not: its answers pile up in the socket.
    public static func open(_ path: String, reads: Bool = true) async throws -> RawConnection {
        let collector = Collector()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.autoRead, value: reads)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .connect(unixDomainSocketPath: path).get()
        return RawConnection(channel: channel, collector: collector)
    }

    public func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    public func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    /// What the daemon sent so far.
    public var bytes: [UInt8] { collector.received.withLock { $0.bytes } }

    /// What the daemon sent so far, as text (invalid UTF-8 repaired).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether the daemon closed the connection (or it was reset).
    public var isClosed: Bool { collector.received.withLock { $0.closed } }

    /// Waits until the daemon closes the connection, up to `timeout`; returns whether it did.
    public func closed(within timeout: Duration) async -> Bool {
        let channel = self.channel
        let outcome = await withTimeout(timeout) { try await channel.closeFuture.get() }
        if case .value = outcome { return true }
        return false
    }

    public func close() async {
        try? await channel.close()
    }

    /// Keeps what arrives, from the moment the connection is made.
    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received = Mutex(Received())

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLock { $0.bytes += Array(buffer.readableBytesView) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            received.withLock { $0.closed = true }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
