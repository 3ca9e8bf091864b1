import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL
import NIOTLS

#if canImport(Glibc)
    import Glibc
#endif

/// What one exchange asks of a connection: the request's parts, its deadline, how much body
/// to read, and where its answer goes.
struct Exchange: Sendable {
    /// The answer, and whether the connection may carry another request.
    typealias Outcome = (response: OutboundResponse, reusable: Bool)

    var head: HTTPRequestHead
    var body: ByteBuffer?
    var deadline: NIODeadline
    var maximumBytes: Int
    var promise: EventLoopPromise<Outcome>
}

/// The last handler of a client connection: writes an `Exchange`'s request, collects its answer
/// and completes its promise exactly once, with the answer, or with the first of the deadline,
/// a body over its limit, an error and the connection closing. One exchange at a time; a failed
/// one closes the connection, so that no half-read answer is left for the next. Before any, it
/// completes `ready` when the connection can carry a request: once connected, or once its TLS
/// handshake is done, so that a refused certificate is told as such rather than as a closed
/// connection.
final class ExchangeHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Exchange
    typealias OutboundOut = HTTPClientRequestPart

    private let ready: EventLoopPromise<Void>
    private let secure: Bool
    private var pending: Exchange?
    private var head: HTTPResponseHead?
    private var body: ByteBuffer?
    private var expiry: Scheduled<Void>?

    init(ready: EventLoopPromise<Void>, secure: Bool) {
        self.ready = ready
        self.secure = secure
    }

    func channelActive(context: ChannelHandlerContext) {
        if !secure { ready.succeed() }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { ready.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        guard pending == nil else {
            exchange.promise.fail(OutboundError.transport("a second request on a busy connection"))
            promise?.fail(ChannelError.inappropriateOperationForState)
            return
        }
        pending = exchange
        head = nil
        body = nil
        expiry = context.eventLoop.assumeIsolated().scheduleTask(deadline: exchange.deadline) {
            self.fail(.deadlineExceeded, context: context)
        }
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        if let body = exchange.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange = pending else { return }
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
        case .body(var part):
            guard (body?.readableBytes ?? 0) + part.readableBytes <= exchange.maximumBytes else {
                return fail(.tooLarge, context: context)
            }
            if body == nil { body = part } else { body?.writeBuffer(&part) }
        case .end:
            guard let head else { return fail(.transport("an answer without a status line"), context: context) }
            let response = OutboundResponse(
                status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) },
                body: body.map { Array(buffer: $0) } ?? [])
            complete()
            exchange.promise.succeed((response, reusable: head.isKeepAlive))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .uncleanShutdown? = error as? NIOSSLError, head != nil {
            // A TLS server that closes without close_notify, as many do: a body that runs to the
            // close ends when the decoder sees it go (as AsyncHTTPClient reads it); any other
            // answer cut short fails there.
            return
        }
        let failure = Self.failure(error, answered: head != nil)
        ready.fail(failure)
        fail(failure, context: context)
        context.close(promise: nil)
    }

    /// `error` as the exchange's failure: before any answer, a connection the server reset or
    /// dropped is one it closed (which a kept connection may be, and a GET is tried again for).
    private static func failure(_ error: any Error, answered: Bool) -> OutboundError {
        switch error {
        case let error as OutboundError: return error
        case let error as NIOHTTPDecompression.DecompressionError: return .decompression(error)
        case let error as NIOHTTPDecompression.ExtraDecompressionError:
            return .transport("the compressed answer cannot be inflated (\(error))")
        case NIOSSLError.uncleanShutdown where !answered: return .closed
        case let error as IOError where !answered && [ECONNRESET, EPIPE].contains(error.errnoCode): return .closed
        default: return .transport("\(error)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        ready.fail(OutboundError.closed)
        fail(.closed, context: context)
        context.fireChannelInactive()
    }

    /// Ends the pending exchange with `error` and closes the connection; nothing when none is pending.
    private func fail(_ error: OutboundError, context: ChannelHandlerContext) {
        guard let exchange = pending else { return }
        complete()
        exchange.promise.fail(error)
        context.close(promise: nil)
    }

    private func complete() {
        pending = nil
        expiry?.cancel()
        expiry = nil
        head = nil
        body = nil
    }
}
