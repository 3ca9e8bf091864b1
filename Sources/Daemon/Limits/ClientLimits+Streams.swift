import Hummingbird
import NIOCore

extension ClientLimits {
    /// Takes one of the stream slots (`limits.max_event_streams`, `max_event_streams_per_peer`
    /// of one app) for the request's connection, until it closes; refused with 503
    /// `too_many_connections` when none is left. The ad event stream and the inspector's share them.
    func holdStream(_ context: DaemonRequestContext) throws {
        try holdStream(holder: Self.holder(context), peer: context.peer, channel: context.channel)
    }

    /// A slot for `holder` (an app, a peer, or the loopback page's `loopback`) on `channel`.
    func holdStream(holder: String, peer: PeerCredentials?, channel: any Channel) throws {
        if let refusal = eventStreams.acquire(holder) {
            let (cap, value) = Self.cap(of: refusal, total: .maxEventStreams, perPeer: .maxEventStreamsPerPeer)
            refused(by: cap, value: value, peer: peer)
            throw APIError(
                .serviceUnavailable, .tooManyConnections,
                cap == .maxEventStreams
                    ? "the daemon has its \(value) event-stream clients (limits.max_event_streams); try again later"
                    : "this app has \(value) event streams open (limits.max_event_streams_per_peer); close one first",
                headers: [.connection: "close", .retryAfter: "1"])
        }
        channel.closeFuture.whenComplete { [eventStreams] _ in eventStreams.release(holder) }
    }

    /// What a stream calls when its client fell behind: counted, and its connection closed.
    func streamBehind(_ context: DaemonRequestContext) -> @Sendable () -> Void {
        streamBehind(peer: context.peer, channel: context.channel)
    }

    func streamBehind(peer: PeerCredentials?, channel: any Channel) -> @Sendable () -> Void {
        { [self] in
            closed(.eventStreamBehind, peer: peer)
            channel.close(promise: nil)
        }
    }
}
