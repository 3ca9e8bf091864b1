import Mediation

/// What the daemon grants its clients, resolved from `limits`: over a cap a client gets a JSON
/// 503 or 429 and the refusal is counted, never an unbounded queue.
public struct Limits: Sendable, Equatable {
    /// Open connections in all.
    public var maxConnections: Int
    /// Open connections of one peer uid.
    public var maxConnectionsPerPeer: Int
    /// How long a connection may wait, between requests, for its next one.
    public var idleTimeout: Duration
    /// How long a request may take to arrive, from its first byte to its last.
    public var readTimeout: Duration
    /// `GET /v1/events` clients at once (exempt from the idle timeout).
    public var maxEventStreams: Int
    /// `GET /v1/events` clients of one peer uid.
    public var maxEventStreamsPerPeer: Int
    /// Events kept for an event-stream client that does not read; past it the client is dropped.
    public var eventStreamBuffer: Int
    /// Requests of one peer uid being answered at once.
    public var maxRequestsInFlightPerPeer: Int
    /// Ads the store keeps, ready, shown or expired.
    public var maxStoredAds: Int
    /// What the daemon takes from ad servers: document depth, text, URL and ad bytes.
    public var content: AdContentLimits

    /// How many peers at their per-peer cap the total must hold, at least, before a
    /// configuration is warned that a few apps could take it all.
    public static let peersTheTotalHolds = 8

    /// The file descriptors kept beside the connections: the state database, adapters'
    /// programs and the HTTP client's connections.
    public static let descriptorsKept = 64

    /// The soft open-file limit the daemon raises itself to at start (within the hard limit)
    /// when its connections need fewer: room for its outbound connections (16 per server) to
    /// grow without reaching the limit, at which libdispatch aborts the process. Programs it
    /// starts inherit it; below 1024 descriptors in use, `select()` in them is unaffected.
    public static let descriptorsWanted = 4096

    public static let standard = Limits(
        maxConnections: 256, maxConnectionsPerPeer: 32, idleTimeout: .seconds(30), readTimeout: .seconds(5),
        maxEventStreams: 32, maxEventStreamsPerPeer: 4, eventStreamBuffer: 256, maxRequestsInFlightPerPeer: 32,
        maxStoredAds: 2000, content: AdContentLimits())

    /// A warning for each per-peer cap that lets fewer than `peersTheTotalHolds` apps hold the
    /// whole of its total (the last unit is kept for root and the daemon's uid all the same).
    public var warnings: [String] {
        [
            (maxConnectionsPerPeer, maxConnections, "max_connections_per_peer", "max_connections"),
            (maxEventStreamsPerPeer, maxEventStreams, "max_event_streams_per_peer", "max_event_streams"),
        ].compactMap { perPeer, total, perPeerKey, totalKey in
            guard perPeer * Self.peersTheTotalHolds > total else { return nil }
            let peers = (max(1, total - 1) + perPeer - 1) / perPeer
            return "limits.\(perPeerKey) (\(perPeer)) lets \(peers) apps hold all of limits.\(totalKey) (\(total)) "
                + "and lock the others out; at most \(max(1, total / Self.peersTheTotalHolds)) keeps room for the rest"
        }
    }
}
