import Logging
import NIOCore
import NIOHTTP1

/// Watches one connection between NIO's HTTP/1 parser and Hummingbird. It closes the
/// connection when it waits past the idle timeout for a request or a request takes longer than
/// the read timeout to arrive; closes it after an answer that says `Connection: close` and
/// after a request that does not keep the connection alive (HTTP/1.0) or is a CONNECT; and gives the HTTP
/// parser's errors the API's JSON error where Hummingbird would send an empty 400.
///
/// Owned by the connection's event loop, like every channel handler.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Sent by `ByteArrivals`, at the head of the pipeline, before the parser sees the bytes.
    struct BytesArrived: Sendable {}

    private let limits: ClientLimits
    private let peer: PeerCredentials?
    private var activity = ConnectionActivity()
    private var timer: (kind: ConnectionActivity.Timer, task: Scheduled<Void>)?
    private var closeAfterAnswer = false
    private var parserFailure: HTTPParserError?

    init(limits: ClientLimits, peer: PeerCredentials?) {
        self.limits = limits
        self.peer = peer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { updateTimer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        updateTimer(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.task.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.task.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is BytesArrived else { return context.fireUserInboundEventTriggered(event) }
        activity.bytesArrived()
        updateTimer(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // HTTP frames no body after an answer to CONNECT (the daemon has no tunnel to
            // open): closing the connection is what ends its error's body.
            if !head.isKeepAlive || head.method == .CONNECT { closeAfterAnswer = true }
        case .body:
            break
        case .end:
            activity.requestEnded()
            updateTimer(context)
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let failure = error as? HTTPParserError {
            parserFailure = failure
            closeAfterAnswer = true
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) {
                closeAfterAnswer = true
            }
            if let failure = parserFailure, Self.isHummingbirdsParseErrorAnswer(head) {
                // Hummingbird answers the parser's error itself, with an empty 400. Once the
                // request was answered that would be a second answer: nothing is sent.
                guard !activity.wasAnsweredEarly else {
                    promise?.succeed()
                    return
                }
                return writeAnswer(failure, context: context, promise: promise)
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            activity.answerEnded()
            updateTimer(context)
            guard closeAfterAnswer, !activity.isAnswering else { return context.write(data, promise: promise) }
            let written = promise ?? context.eventLoop.makePromise()
            context.writeAndFlush(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    /// Writes `failure`'s status, `Connection: close` and its JSON body, in place of a head.
    private func writeAnswer(
        _ failure: any APIFailure, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?
    ) {
        let body = (try? failure.body()) ?? Array("{\"error\":{\"code\":\"bad_request\"}}\n".utf8)
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "\(body.count)")])
        headers.replaceOrAdd(name: "Connection", value: "close")
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: failure.status.code), headers: headers)
        closeAfterAnswer = true
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: promise)
    }

    /// Hummingbird's answer to a parser error: 400, `Content-Length: 0`. The daemon's own 400s
    /// always carry a JSON body.
    private static func isHummingbirdsParseErrorAnswer(_ head: HTTPResponseHead) -> Bool {
        head.status == .badRequest && head.headers[canonicalForm: "content-length"].first == "0"
    }

    /// Runs the timer the connection's activity calls for, and only that one.
    private func updateTimer(_ context: ChannelHandlerContext) {
        let wanted = activity.timer
        guard timer?.kind != wanted else { return }
        timer?.task.cancel()
        timer = nil
        guard let wanted else { return }
        let delay = wanted == .idle ? limits.limits.idleTimeout : limits.limits.readTimeout
        let task = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
            self.timer = nil
            self.expired(wanted, context: context)
        }
        timer = (wanted, task)
    }

    private func expired(_ kind: ConnectionActivity.Timer, context: ChannelHandlerContext) {
        switch kind {
        case .idle:
            limits.closed(.idleTimeout, peer: peer)
            context.close(promise: nil)
        case .read:
            limits.closed(.readTimeout, peer: peer)
            // A request answered before it arrived whole gets no second answer.
            guard !activity.wasAnsweredEarly else { return context.close(promise: nil) }
            let timeout = APIError(
                .requestTimeout, "request_timeout",
                "the request did not arrive within \(Int(limits.limits.readTimeout / .milliseconds(1))) ms")
            writeAnswer(timeout, context: context, promise: nil)
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}

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
