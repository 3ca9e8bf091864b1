import SharedTypes

/// `rewards` in the configuration: how long the ledger keeps an earned reward, claimed or not.
@Settings
public struct RewardSettings: Codable, Sendable {
    /// From a minute to a year; 30 days unless set.
    @WireName("retention_ms") @Bounds(60_000...31_536_000_000) public var retentionMilliseconds = 2_592_000_000

    public init() {}

    public var retention: Duration { .milliseconds(retentionMilliseconds) }
}
