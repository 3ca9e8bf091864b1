import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// One connection of the socket API: Hummingbird's HTTP/1.1 channel, with the peer's
/// credentials read once when it is accepted (visible to its requests through a task-local),
/// admitted under the connection caps, and watched by `ConnectionGuard`. A connection over a
/// cap is answered 503 `too_many_connections` and closed without reading a request, by
/// `RefusalHandler` on the event loop: a flood of refused connections costs as little as it can.
struct DaemonChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        /// The HTTP channel of an admitted connection; nil for a refused one.
        let inner: HTTP1Channel.Value?
        let peer: PeerCredentials?
        let channel: any Channel
    }

    let inner: HTTP1Channel
    let limits: ClientLimits
    let refusals: Refusals
    /// Whether the registry recognizes apps by what only /proc says (`AppRegistry.readsProcess`).
    let readsProcess: @Sendable () -> Bool

    init(
        responder: @escaping HTTPChannelHandler.Responder, limits: ClientLimits,
        readsProcess: @escaping @Sendable () -> Bool
    ) {
        // The guard keeps the connection's time; Hummingbird's own idle timer is not used.
        inner = HTTP1Channel(responder: responder, configuration: HTTP1Channel.Configuration())
        self.limits = limits
        refusals = Refusals(limits: limits.limits)
        self.readsProcess = readsProcess
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let inner = self.inner
        let limits = self.limits
        let refusals = self.refusals
        let readsProcess = self.readsProcess
        return PeerCredentials.read(from: channel).flatMap { credentials in
            if let refusal = limits.connections.acquire(credentials?.uid) {
                let refused = ClientLimits.cap(of: refusal, total: .maxConnections, perPeer: .maxConnectionsPerPeer)
                limits.refused(by: refused.cap, value: refused.value, peer: credentials)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RefusalHandler(refusals.answer(over: refused.cap)))
                    return Value(inner: nil, peer: credentials, channel: channel)
                }
            }
            let peer = credentials?.completed(readingProcess: readsProcess())
            limits.connectionsChanged()
            channel.closeFuture.whenComplete { _ in
                limits.connections.release(peer?.uid)
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
        guard let http = value.inner else { return }
        await PeerCredentialScope.$current.withValue(value.peer) {
            await inner.handle(value: http, logger: logger)
        }
    }
}
