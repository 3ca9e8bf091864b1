import Hummingbird
import NIOCore

extension ClientLimits {
    /// Takes one of the stream slots (`limits.max_event_streams`, `max_event_streams_per_peer`
    /// of one app) for the request's connection, until it closes; refused with 503
    /// `too_many_connections` when none is left. The ad event stream and the inspector's share them.
    func holdStream(_ context: DaemonRequestContext) throws {
        let holder = Self.holder(context)
        if let refusal = eventStreams.acquire(holder) {
            let (cap, value) = Self.cap(of: refusal, total: .maxEventStreams, perPeer: .maxEventStreamsPerPeer)
            refused(by: cap, value: value, peer: context.peer)
            throw APIError(
                .serviceUnavailable, .tooManyConnections,
                cap == .maxEventStreams
                    ? "the daemon has its \(value) event-stream clients (limits.max_event_streams); try again later"
                    : "this app has \(value) event streams open (limits.max_event_streams_per_peer); close one first",
                headers: [.connection: "close", .retryAfter: "1"])
        }
        context.channel.closeFuture.whenComplete { [eventStreams] _ in eventStreams.release(holder) }
    }

    /// What a stream calls when its client fell behind: counted, and its connection closed.
    func streamBehind(_ context: DaemonRequestContext) -> @Sendable () -> Void {
        let (peer, channel) = (context.peer, context.channel)
        return { [self] in
            closed(.eventStreamBehind, peer: peer)
            channel.close(promise: nil)
        }
    }
}
