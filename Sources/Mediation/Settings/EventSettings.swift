import SharedTypes
import Timing

/// `events` in the configuration: how many of the latest events are kept (in the state
/// database) for a client that resumes with `Last-Event-ID`, and for how long.
@Settings
public struct EventSettings: Codable, Sendable {
    @Bounds(1...1_000_000) public var retentionCount = EventRetention().count
    @WireName("retention_ms") @Bounds(1...2_592_000_000)
    public var retentionMilliseconds = Int(EventRetention().age.wholeMilliseconds)

    public init() {}

    public var retention: EventRetention {
        EventRetention(count: retentionCount, age: .milliseconds(retentionMilliseconds))
    }
}
