import SharedTypes

/// `performance` in the configuration: how the daemon trades memory or idle time for speed.
@Settings
public struct PerformanceSettings: Codable, Sendable {
    /// X25519 key pairs made ahead of need, in idle time, for the seals' ephemeral keys; 0
    /// makes each key inline, as a seal without a pool does.
    @Bounds(0...4096) public var ephemeralKeyPool = CollectorConfiguration.standardEphemeralKeyPool

    public init() {}
}
