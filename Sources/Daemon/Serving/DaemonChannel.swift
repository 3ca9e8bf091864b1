import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// One connection of the socket API: Hummingbird's HTTP/1.1 channel, with the peer's
/// credentials read once when it is accepted (visible to its requests through a task-local),
/// admitted under the connection caps, and watched by `ConnectionGuard`. A connection over a
/// cap is answered 503 `too_many_connections` and closed without reading a request.
struct DaemonChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let inner: HTTP1Channel.Value
        let peer: PeerCredentials?
        /// The cap that refused the connection, and its value; nil when it was admitted.
        let refusal: (cap: ClientLimits.Cap, value: Int)?
        var channel: any Channel { inner.channel }
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
            let refusal = limits.connections.acquire(peer: credentials?.uid).map {
                ClientLimits.cap(of: $0, total: .maxConnections, perPeer: .maxConnectionsPerPeer)
            }
            let peer = refusal == nil ? credentials?.withGroups() : credentials
            if refusal == nil {
                limits.connectionsChanged()
                channel.closeFuture.whenComplete { _ in
                    limits.connections.release(peer: peer?.uid)
                    limits.connectionsChanged()
                }
            }
            return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
                let pipeline = channel.pipeline.syncOperations
                let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
                try pipeline.addHandler(ConnectionGuard(limits: limits, peer: peer), position: .before(codec))
                try pipeline.addHandler(ByteArrivals(), position: .first)
                return Value(inner: value, peer: peer, refusal: refusal)
            }
        }
    }

    func handle(value: Value, logger: Logger) async {
        if let refusal = value.refusal {
            limits.refused(by: refusal.cap, value: refusal.value, peer: value.peer)
            await Self.refuse(value.inner, cap: refusal.cap, value: refusal.value)
            return
        }
        await PeerCredentialScope.$current.withValue(value.peer) {
            await inner.handle(value: value.inner, logger: logger)
        }
    }

    /// Answers 503 `too_many_connections` at once, and closes.
    private static func refuse(_ channel: HTTP1Channel.Value, cap: ClientLimits.Cap, value: Int) async {
        let failure = APIError(
            .serviceUnavailable, "too_many_connections",
            cap == .maxConnections
                ? "the daemon has its \(value) connections open (limits.max_connections); try again later"
                : "this uid has \(value) connections open (limits.max_connections_per_peer); close one first",
            headers: [.connection: "close", .retryAfter: "1"])
        guard let body = try? failure.body() else { return }
        var headers = failure.headers
        headers[.contentType] = "application/json"
        headers[.contentLength] = "\(body.count)"
        try? await channel.executeThenClose { _, outbound in
            try await outbound.write(.head(HTTPResponse(status: failure.status, headerFields: headers)))
            try await outbound.write(.body(ByteBuffer(bytes: body)))
            try await outbound.write(.end(nil))
        }
    }
}

extension HTTPServerBuilder {
    /// The socket API's connections (`DaemonChannel`), under `limits`.
    static func daemon(limits: ClientLimits) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in DaemonChannel(responder: responder, limits: limits) }
    }
}
