import Logging
import Metrics
import Prometheus
import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// The limits of one daemon in force: what connections, requests and event streams are held
/// now, and the counting and logging of every refusal and every connection the daemon closes.
final class ClientLimits: Sendable {
    /// A cap that refused a client; its name is the configuration key.
    enum Cap: String, CaseIterable, Sendable {
        case maxConnections = "max_connections"
        case maxConnectionsPerPeer = "max_connections_per_peer"
        case maxEventStreams = "max_event_streams"
        case maxEventStreamsPerPeer = "max_event_streams_per_peer"
        case maxRequestsInFlightPerPeer = "max_requests_in_flight_per_peer"
    }

    /// Why the daemon closed a connection itself.
    enum Closing: String, CaseIterable, Sendable {
        case idleTimeout = "idle_timeout"
        case readTimeout = "read_timeout"
        case eventStreamBehind = "event_stream_behind"
    }

    let limits: Limits
    /// Connections by peer uid (nil: a peer whose credentials cannot be read; they share one).
    let connections: PeerQuota<UInt32?>
    /// Requests in flight and event streams by app id (`ClientLimits.holder`): each app hosted
    /// by a broker has its own share, and the broker's connections are its peer's.
    let requests: PeerQuota<String>
    let eventStreams: PeerQuota<String>
    private let logger: Logger
    private let rateLimit: RateLimitedLog<ContinuousClock>
    private let refusals: [Cap: Metrics.Counter]
    private let closings: [Closing: Metrics.Counter]
    private let openConnections: Metrics.Gauge

    init(limits: Limits, logger: Logger, metrics: PrometheusMetricsFactory) {
        self.limits = limits
        let operators: Set<UInt32> = [0, getuid()]
        connections = PeerQuota(
            total: limits.maxConnections, perPeer: limits.maxConnectionsPerPeer, privileged: Set(operators.map { $0 }))
        requests = PeerQuota(total: nil, perPeer: limits.maxRequestsInFlightPerPeer, privileged: [])
        eventStreams = PeerQuota(
            total: limits.maxEventStreams, perPeer: limits.maxEventStreamsPerPeer,
            privileged: Set(operators.map { "uid:\($0)" }))
        self.logger = logger
        rateLimit = RateLimitedLog(clock: ContinuousClock())
        refusals = Self.counters("secure_signals_limit_refusals_total", by: "limit", metrics: metrics)
        closings = Self.counters("secure_signals_connections_closed_total", by: "reason", metrics: metrics)
        openConnections = Metrics.Gauge(label: "secure_signals_connections_open", factory: metrics)
    }

    /// A counter of `label` for each case, its raw value the `dimension`'s: made once, so every
    /// series shows from the start, at zero.
    private static func counters<Key: CaseIterable & RawRepresentable & Hashable>(
        _ label: String, by dimension: String, metrics: PrometheusMetricsFactory
    ) -> [Key: Metrics.Counter] where Key.RawValue == String {
        Dictionary(
            uniqueKeysWithValues: Key.allCases.map {
                ($0, Metrics.Counter(label: label, dimensions: [(dimension, $0.rawValue)], factory: metrics))
            })
    }

    /// Who holds a request or an event stream: the app it speaks for (an operator's unregistered
    /// app is `uid:N`, as privileged as its uid); a peer no app was recognized for, by its uid.
    static func holder(_ context: DaemonRequestContext) -> String {
        context.app?.id ?? "peer:\(context.peer.map { "\($0.uid)" } ?? "-")"
    }

    /// The cap a quota's refusal reached.
    static func cap<Holder>(of refusal: PeerQuota<Holder>.Refusal, total: Cap, perPeer: Cap) -> (cap: Cap, value: Int) {
        switch refusal {
        case .total(let value): return (total, value)
        case .perPeer(let value): return (perPeer, value)
        }
    }

    /// Counts a refusal, and logs it unless this peer's refusals by `cap` were logged this minute.
    func refused(by cap: Cap, value: Int, peer: PeerCredentials?) {
        refusals[cap]?.increment()
        log(
            .warning, "refused a client over a limit", event: cap.rawValue, peer: peer,
            metadata: ["limit": "\(cap.rawValue)", "value": "\(value)"])
    }

    /// Counts a connection the daemon closed, and logs it as `refused` does.
    func closed(_ closing: Closing, peer: PeerCredentials?) {
        closings[closing]?.increment()
        log(
            .notice, "closed a client's connection", event: closing.rawValue, peer: peer,
            metadata: ["reason": "\(closing.rawValue)"])
    }

    /// Logs `message` about `peer`, at most once a minute per peer and `event`.
    private func log(
        _ level: Logger.Level, _ message: String, event: String, peer: PeerCredentials?, metadata: Logger.Metadata
    ) {
        let uid = peer.map { "\($0.uid)" } ?? "unknown"
        guard rateLimit.shouldLog("\(uid) \(event)") else { return }
        logger.log(
            level: level, "\(message) (logged once a minute per peer)",
            metadata: metadata.merging(["peer_uid": "\(uid)", "peer_pid": "\(peer?.pid ?? 0)"]) { $1 })
    }

    /// Tells the gauge how many connections are open.
    func connectionsChanged() {
        openConnections.record(connections.held)
    }
}
