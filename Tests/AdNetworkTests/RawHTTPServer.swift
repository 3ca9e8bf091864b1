import NIOCore
import NIOPosix
import Synchronization

/// A raw HTTP/1.1 server on loopback that answers `ok` to each request after `delay`, and
/// counts its connections. `closing`, it answers only the first request on each connection and
/// closes the connection at the second without answering, never saying it will (no
/// `Connection: close`): a server whose keep-alive ran out as the request arrived. Requests
/// have no bodies.
final class RawHTTPServer: Sendable {
    /// The request lines it got, in order, how many connections it accepted, and how many
    /// were open at once: now and at most.
    final class Log: Sendable {
        let requests = Mutex<[String]>([])
        let connections = Mutex(0)
        let open = Mutex((now: 0, most: 0))
    }

    let log = Log()
    private let channel: any Channel

    var port: Int { channel.localAddress?.port ?? 0 }
    var requests: [String] { log.requests.withLock { $0 } }
    var connections: Int { log.connections.withLock { $0 } }
    var mostOpen: Int { log.open.withLock { $0.most } }
    var openNow: Int { log.open.withLock { $0.now } }

    init(closing: Bool = true, delay: TimeAmount = .zero) async throws {
        let log = self.log
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Handler(log: log, closing: closing, delay: delay))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func stop() async { try? await channel.close() }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let log: Log
        let closing: Bool
        let delay: TimeAmount
        private var received = ""
        private var answered = false

        init(log: Log, closing: Bool, delay: TimeAmount) {
            self.log = log
            self.closing = closing
            self.delay = delay
        }

        func channelActive(context: ChannelHandlerContext) {
            log.connections.withLock { $0 += 1 }
            log.open.withLock { $0 = (now: $0.now + 1, most: max($0.most, $0.now + 1)) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            log.open.withLock { $0.now -= 1 }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += String(buffer: unwrapInboundIn(data))
            while let end = received.range(of: "\r\n\r\n") {
                let line = String(received[..<end.lowerBound].prefix { $0 != "\r\n" })
                received = String(received[end.upperBound...])
                log.requests.withLock { $0.append(line) }
                guard !(closing && answered) else { return context.close(promise: nil) }
                answered = true
                let answer = wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
                if delay > .zero {
                    context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
                        context.writeAndFlush(answer, promise: nil)
                    }
                } else {
                    context.writeAndFlush(answer, promise: nil)
                }
            }
        }
    }
}
