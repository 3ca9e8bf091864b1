import Mediation
import SharedTypes

extension DaemonConfiguration {
    /// `events`: how many of the latest events are kept (in the state database) for a client
    /// that resumes with `Last-Event-ID`, and for how long.
    @WireKeys
    struct EventSettings: Codable, Sendable {
        var retentionCount = 10_000
        @WireName("retention_ms") var retentionMilliseconds = 86_400_000

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            retentionCount = try container.positive(.retentionCount, default: 10_000, max: 1_000_000)
            retentionMilliseconds = try container.positive(
                .retentionMilliseconds, default: 86_400_000, max: 2_592_000_000)
        }
    }
}

extension ConfigurationResolver {
    /// `events`: what the event stream keeps for resuming.
    func eventRetention() -> EventRetention {
        EventRetention(
            count: settings.events.retentionCount, age: .milliseconds(settings.events.retentionMilliseconds))
    }
}
