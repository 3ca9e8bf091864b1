import SharedTypes

extension DaemonConfiguration {
    /// `rewards`: how long the ledger keeps an earned reward, claimed or not.
    @WireKeys
    struct RewardSettings: Codable, Sendable {
        @WireName("retention_ms") var retentionMilliseconds = 2_592_000_000

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // From a minute to a year.
            retentionMilliseconds = try container.positive(
                .retentionMilliseconds, default: 2_592_000_000, max: 31_536_000_000)
            if retentionMilliseconds < 60_000 {
                throw StrictJSON.Failure(
                    path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.retentionMilliseconds]),
                    reason: "must be at least 60000, not \(retentionMilliseconds)")
            }
        }
    }
}
