import Mediation
import SharedTypes

extension DaemonConfiguration {
    /// `trackers`: how long a tracker ping the daemon owes is tried before it is given up.
    @WireKeys
    struct TrackerSettings: Codable, Sendable {
        @WireName("max_age_ms") var maxAgeMilliseconds = 86_400_000

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // Up to 30 days: the outbox is on disk, but an ad server forgets a bid long before.
            maxAgeMilliseconds = try container.positive(.maxAgeMilliseconds, default: 86_400_000, max: 2_592_000_000)
        }
    }
}

extension ConfigurationResolver {
    /// `trackers`: the tracker queue's settings.
    func trackers() -> TrackerQueue.Settings {
        TrackerQueue.Settings(
            maxAge: .milliseconds(settings.trackers.maxAgeMilliseconds),
            ssvMaxAge: .milliseconds(settings.ssv.maxAgeMilliseconds))
    }
}
