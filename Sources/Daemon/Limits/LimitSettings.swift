import SharedTypes

/// `limits` in the configuration: what one client, or all of them, may take of the daemon. Every key is
/// optional; the defaults suit a device with a few dozen apps.
@Settings
struct LimitSettings: Codable, Sendable {
    @Bounds(1...65_536) var maxConnections = Limits.standard.maxConnections
    @Bounds(1...65_536) var maxConnectionsPerPeer = Limits.standard.maxConnectionsPerPeer
    @WireName("idle_timeout_ms") @Bounds(1...3_600_000) var idleTimeoutMilliseconds = 30_000
    @WireName("read_timeout_ms") @Bounds(1...600_000) var readTimeoutMilliseconds = 5_000
    @Bounds(1...4096) var maxEventStreams = Limits.standard.maxEventStreams
    @Bounds(1...4096) var maxEventStreamsPerPeer = Limits.standard.maxEventStreamsPerPeer
    @Bounds(1...65_536) var eventStreamBuffer = Limits.standard.eventStreamBuffer
    @Bounds(1...65_536) var maxRequestsInFlightPerPeer = Limits.standard.maxRequestsInFlightPerPeer
    @Bounds(1...1_000_000) var maxStoredAds = Limits.standard.maxStoredAds
    @Bounds(1...1024) var maxDocumentDepth = Limits.standard.content.maximumDocumentDepth
    @Bounds(1...(1 << 20)) var maxTextBytes = Limits.standard.content.maximumTextBytes
    @Bounds(1...(1 << 20)) var maxURLBytes = Limits.standard.content.maximumURLBytes
    @Bounds(1...(64 << 20)) var maxAdBytes = Limits.standard.content.maximumAdBytes
    @Bounds(1...(4 << 30)) var maxStoredAdBytes = Limits.standard.content.maximumStoredAdBytes

}
