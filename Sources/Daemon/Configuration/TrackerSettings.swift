import Mediation
import SharedTypes

extension DaemonConfiguration {
    /// `trackers`: how long a tracker ping the daemon owes is tried before it is given up, and
    /// how many it owes at most (the oldest beyond are given up).
    @WireKeys
    struct TrackerSettings: Codable, Sendable {
        @WireName("max_age_ms") var maxAgeMilliseconds = 86_400_000
        var maxOwed = TrackerQueue.Settings().maxOwed
        @WireName("max_url_bytes") var maxURLBytes = TrackerQueue.Settings().maxURLBytes

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // Up to 30 days: the outbox is on disk, but an ad server forgets a bid long before.
            maxAgeMilliseconds = try container.positive(.maxAgeMilliseconds, default: 86_400_000, max: 2_592_000_000)
            maxOwed = try container.positive(.maxOwed, default: TrackerQueue.Settings().maxOwed, max: 10_000_000)
            maxURLBytes = try container.positive(
                .maxURLBytes, default: TrackerQueue.Settings().maxURLBytes, max: 1 << 20)
        }
    }
}

extension ConfigurationResolver {
    /// `trackers`: the tracker queue's settings.
    func trackers() -> TrackerQueue.Settings {
        TrackerQueue.Settings(
            maxAge: .milliseconds(settings.trackers.maxAgeMilliseconds),
            ssvMaxAge: .milliseconds(settings.ssv.maxAgeMilliseconds), maxOwed: settings.trackers.maxOwed,
            maxURLBytes: settings.trackers.maxURLBytes)
    }
}
