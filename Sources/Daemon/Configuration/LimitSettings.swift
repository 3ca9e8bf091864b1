import SharedTypes

extension DaemonConfiguration {
    /// `limits`: what one client, or all of them, may take of the daemon. Every key is
    /// optional; the defaults suit a device with a few dozen apps.
    @WireKeys
    struct LimitSettings: Codable, Sendable {
        var maxConnections = Limits.standard.maxConnections
        var maxConnectionsPerPeer = Limits.standard.maxConnectionsPerPeer
        @WireName("idle_timeout_ms") var idleTimeoutMilliseconds = 30_000
        @WireName("read_timeout_ms") var readTimeoutMilliseconds = 5_000
        var maxEventStreams = Limits.standard.maxEventStreams
        var maxEventStreamsPerPeer = Limits.standard.maxEventStreamsPerPeer
        var eventStreamBuffer = Limits.standard.eventStreamBuffer
        var maxRequestsInFlightPerPeer = Limits.standard.maxRequestsInFlightPerPeer
        var maxStoredAds = Limits.standard.maxStoredAds
        var maxDocumentDepth = Limits.standard.content.maximumDocumentDepth
        var maxTextBytes = Limits.standard.content.maximumTextBytes
        var maxURLBytes = Limits.standard.content.maximumURLBytes
        var maxAdBytes = Limits.standard.content.maximumAdBytes
        var maxStoredAdBytes = Limits.standard.content.maximumStoredAdBytes

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let standard = Limits.standard
            maxConnections = try container.positive(.maxConnections, default: standard.maxConnections, max: 65_536)
            maxConnectionsPerPeer = try container.positive(
                .maxConnectionsPerPeer, default: standard.maxConnectionsPerPeer, max: 65_536)
            idleTimeoutMilliseconds = try container.positive(.idleTimeoutMilliseconds, default: 30_000, max: 3_600_000)
            readTimeoutMilliseconds = try container.positive(.readTimeoutMilliseconds, default: 5_000, max: 600_000)
            maxEventStreams = try container.positive(.maxEventStreams, default: standard.maxEventStreams, max: 4096)
            maxEventStreamsPerPeer = try container.positive(
                .maxEventStreamsPerPeer, default: standard.maxEventStreamsPerPeer, max: 4096)
            eventStreamBuffer = try container.positive(
                .eventStreamBuffer, default: standard.eventStreamBuffer, max: 65_536)
            maxRequestsInFlightPerPeer = try container.positive(
                .maxRequestsInFlightPerPeer, default: standard.maxRequestsInFlightPerPeer, max: 65_536)
            maxStoredAds = try container.positive(.maxStoredAds, default: standard.maxStoredAds, max: 1_000_000)
            let content = standard.content
            maxDocumentDepth = try container.positive(
                .maxDocumentDepth, default: content.maximumDocumentDepth, max: 1024)
            maxTextBytes = try container.positive(.maxTextBytes, default: content.maximumTextBytes, max: 1 << 20)
            maxURLBytes = try container.positive(.maxURLBytes, default: content.maximumURLBytes, max: 1 << 20)
            maxAdBytes = try container.positive(.maxAdBytes, default: content.maximumAdBytes, max: 64 << 20)
            maxStoredAdBytes = try container.positive(
                .maxStoredAdBytes, default: content.maximumStoredAdBytes, max: 4 << 30)
        }
    }
}
