import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// One connection of the socket API: Hummingbird's HTTP/1.1 channel, with the peer's
/// credentials read once when it is accepted (visible to its requests through a task-local),
/// admitted under the connection caps, and watched by `ConnectionGuard`. A connection over a
/// cap is answered 503 `too_many_connections` and closed without reading a request, through
/// NIO's response encoder alone: a flood of refused connections costs as little as it can.
struct DaemonChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        /// The HTTP channel of an admitted connection; nil for a refused one.
        let inner: HTTP1Channel.Value?
        let peer: PeerCredentials?
        let channel: any Channel
        /// The cap that refused the connection, and its value.
        var refusal: (cap: ClientLimits.Cap, value: Int)? = nil
    }

    let inner: HTTP1Channel
    let limits: ClientLimits

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ClientLimits) {
        // The guard keeps the connection's time; Hummingbird's own idle timer is not used.
        inner = HTTP1Channel(responder: responder, configuration: HTTP1Channel.Configuration())
        self.limits = limits
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let inner = self.inner
        let limits = self.limits
        return PeerCredentials.read(from: channel).flatMap { credentials in
            if let refusal = limits.connections.acquire(peer: credentials?.uid) {
                let refused = ClientLimits.cap(of: refusal, total: .maxConnections, perPeer: .maxConnectionsPerPeer)
                limits.refused(by: refused.cap, value: refused.value, peer: credentials)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
                    return Value(inner: nil, peer: credentials, channel: channel, refusal: refused)
                }
            }
            let peer = credentials?.withGroups()
            limits.connectionsChanged()
            channel.closeFuture.whenComplete { _ in
                limits.connections.release(peer: peer?.uid)
                limits.connectionsChanged()
            }
            return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
                let pipeline = channel.pipeline.syncOperations
                let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
                try pipeline.addHandler(ConnectionGuard(limits: limits, peer: peer), position: .before(codec))
                try pipeline.addHandler(ByteArrivals(), position: .first)
                return Value(inner: value, peer: peer, channel: channel)
            }
        }
    }

    func handle(value: Value, logger: Logger) async {
        if let refusal = value.refusal {
            return await Self.refuse(value.channel, cap: refusal.cap, value: refusal.value)
        }
        guard let http = value.inner else { return }
        await PeerCredentialScope.$current.withValue(value.peer) {
            await inner.handle(value: http, logger: logger)
        }
    }

    /// Answers 503 `too_many_connections` at once, and closes.
    private static func refuse(_ channel: any Channel, cap: ClientLimits.Cap, value: Int) async {
        let failure = APIError(
            .serviceUnavailable, "too_many_connections",
            cap == .maxConnections
                ? "the daemon has its \(value) connections open (limits.max_connections); try again later"
                : "this uid has \(value) connections open (limits.max_connections_per_peer); close one first",
            headers: [.connection: "close", .retryAfter: "1"])
        let body = (try? failure.body()) ?? []
        let head = HTTPResponseHead(
            version: .http1_1, status: .serviceUnavailable,
            headers: HTTPHeaders([
                ("Content-Type", "application/json"), ("Content-Length", "\(body.count)"), ("Connection", "close"),
                ("Retry-After", "1"),
            ]))
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
        try? await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        try? await channel.close()
    }
}

extension HTTPServerBuilder {
    /// The socket API's connections (`DaemonChannel`), under `limits`.
    static func daemon(limits: ClientLimits) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in DaemonChannel(responder: responder, limits: limits) }
    }
}
