import DequeModule
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
final class ConnectionGuard: ChannelDuplexHandler, ActivatedChannelHandler, RemovableChannelHandler {
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
    /// For each request read and not yet answered, in order: whether it keeps the connection
    /// alive (HTTP/1.0 without keep-alive, `Connection: close` and CONNECT do not), and
    /// whether it is HTTP/1.0, whose keep-alive the answer must confirm.
    private var keepAlive = Deque<(keep: Bool, http10: Bool)>()
    /// The answer being written ends the connection.
    private var answerCloses = false
    /// An answer's head is written and its end is not.
    private var answerInProgress = false
    /// Hummingbird's second answer to a request already answered: not written.
    private var suppressing = false
    private var parserFailure: HTTPParserError?
    /// After an answer that ends the connection came before its request's end (a 413): how
    /// many more body bytes are read and dropped before the connection closes. Closing with
    /// unread bytes would reset the connection, and the client would never read its answer.
    private var drainLeft: Int?

    /// The most body bytes drained after an early closing answer, and for how long.
    static let drainBytes = 8 << 20
    static let drainTime = TimeAmount.seconds(2)

    init(limits: ClientLimits, peer: PeerCredentials?) {
        self.limits = limits
        self.peer = peer
    }

    func channelIsActive(context: ChannelHandlerContext) {
        updateTimer(context)
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
        if drainLeft != nil, case ChannelEvent.inputClosed? = event as? ChannelEvent {
            return context.close(promise: nil)
        }
        guard event is BytesArrived else { return context.fireUserInboundEventTriggered(event) }
        activity.bytesArrived()
        updateTimer(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let left = drainLeft {
            guard case .body(let bytes) = unwrapInboundIn(data), bytes.readableBytes < left else {
                return context.close(promise: nil)
            }
            drainLeft = left - bytes.readableBytes
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // HTTP frames no body after an answer to CONNECT (the daemon has no tunnel to
            // open): closing the connection is what ends its error's body.
            keepAlive.append(
                (head.isKeepAlive && head.method != .CONNECT, head.version.major == 1 && head.version.minor == 0))
        case .body:
            break
        case .end:
            activity.requestEnded()
            updateTimer(context)
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if drainLeft != nil { return context.close(promise: nil) }
        // The connection closes after the answer to this failure, not after an earlier
        // request's answer still being written (a pipelined request's).
        if let failure = error as? HTTPParserError { parserFailure = failure }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if let failure = parserFailure, Self.isHummingbirdsParseErrorAnswer(head) {
                // Hummingbird answers the parser's error itself, with an empty 400. Once the
                // request was answered that would be a second answer: nothing more is sent.
                guard !activity.wasAnsweredEarly else {
                    suppressing = true
                    promise?.succeed()
                    context.close(promise: nil)
                    return
                }
                return writeAnswer(MalformedRequest(error: failure), context: context, promise: promise)
            }
            let asked = keepAlive.popFirst() ?? (true, false)
            answerCloses =
                !asked.keep || head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
            answerInProgress = true
            guard asked.http10, !answerCloses else { return context.write(data, promise: promise) }
            // Only an answer with a length can be followed on the connection by an HTTP/1.0
            // client; one without (an event stream) ends with the connection.
            guard head.headers[canonicalForm: "content-length"].first != nil else {
                answerCloses = true
                return context.write(data, promise: promise)
            }
            // An HTTP/1.0 client keeps the connection only if the answer says it stays open.
            var confirmed = head
            confirmed.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
            context.write(wrapOutboundOut(.head(confirmed)), promise: promise)
        case .body:
            guard !suppressing else {
                promise?.succeed()
                return
            }
            context.write(data, promise: promise)
        case .end:
            guard !suppressing else {
                promise?.succeed()
                return
            }
            answerInProgress = false
            activity.answerEnded()
            updateTimer(context)
            guard answerCloses else { return context.write(data, promise: promise) }
            guard activity.wasAnsweredEarly, !suppressing else { return context.writeAndClose(data, promise: promise) }
            drain(context, after: data, promise: promise)
        }
    }

    /// Writes the answer's end and closes the output, then reads and drops what is left of
    /// the request, up to `drainBytes` and `drainTime`, before closing the connection.
    private func drain(_ context: ChannelHandlerContext, after end: NIOAny, promise: EventLoopPromise<Void>?) {
        drainLeft = Self.drainBytes
        timer?.task.cancel()
        timer = nil
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenComplete { result in
            promise?.completeWith(result)
            context.close(mode: .output, promise: nil)
        }
        context.writeAndFlush(end, promise: written)
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.drainTime) { context.close(promise: nil) }
        context.read()
    }

    /// Writes `failure`'s head (it closes the connection) and its JSON body, in place of a head.
    private func writeAnswer(
        _ failure: any APIFailure, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?
    ) {
        let answer = failure.closingAnswer()
        answerCloses = true
        answerInProgress = true
        context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: promise)
    }

    /// Hummingbird's answer to a parser error: 400, `Content-Length: 0`. The daemon's own 400s
    /// always carry a JSON body.
    private static func isHummingbirdsParseErrorAnswer(_ head: HTTPResponseHead) -> Bool {
        head.status == .badRequest && head.headers[canonicalForm: "content-length"].first == "0"
    }

    /// Runs the timer the connection's activity calls for, and only that one.
    private func updateTimer(_ context: ChannelHandlerContext) {
        guard drainLeft == nil else { return }
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
            // A request answered before it arrived whole gets no second answer, nor does one
            // whose answer is being written.
            guard !activity.wasAnsweredEarly, !answerInProgress else { return context.close(promise: nil) }
            let timeout = APIError(
                .requestTimeout, .requestTimeout,
                "the request did not arrive within \(Int(limits.limits.readTimeout / .milliseconds(1))) ms")
            writeAnswer(timeout, context: context, promise: nil)
            context.writeAndClose(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
