import SharedTypes
import Timing

/// `trackers` in the configuration: how long a tracker ping the daemon owes is tried before it
/// is given up, and how many it owes at most (the oldest beyond are given up).
@Settings
public struct TrackerSettings: Codable, Sendable {
    /// Up to 30 days: the outbox is on disk, but an ad server forgets a bid long before.
    @WireName("max_age_ms") @Bounds(1...2_592_000_000)
    public var maxAgeMilliseconds = Int(TrackerQueue.Settings().maxAge.wholeMilliseconds)
    @Bounds(1...10_000_000) public var maxOwed = TrackerQueue.Settings().maxOwed
    @WireName("max_url_bytes") @Bounds(1...(1 << 20)) public var maxURLBytes = TrackerQueue.Settings().maxURLBytes

    public init() {}

    /// The queue's settings; an SSV callback is owed for `ssvMaxAge` (the `ssv` section's).
    public func queueSettings(ssvMaxAge: Duration) -> TrackerQueue.Settings {
        TrackerQueue.Settings(
            maxAge: .milliseconds(maxAgeMilliseconds), ssvMaxAge: ssvMaxAge, maxOwed: maxOwed, maxURLBytes: maxURLBytes)
    }
}
