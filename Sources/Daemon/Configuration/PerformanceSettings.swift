import SharedTypes

extension DaemonConfiguration {
    /// `performance`: how the daemon trades memory or idle time for speed.
    @WireKeys
    struct PerformanceSettings: Codable, Sendable {
        /// X25519 key pairs made ahead of need, in idle time, for the seals' ephemeral keys; 0
        /// makes each key inline, as a seal without a pool does.
        var ephemeralKeyPool = 64

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            ephemeralKeyPool = try container.wholeNumber(.ephemeralKeyPool) ?? 64
            guard (0...4096).contains(ephemeralKeyPool) else {
                throw StrictJSON.Failure(
                    path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.ephemeralKeyPool]),
                    reason: "must be between 0 (no pool) and 4096, not \(ephemeralKeyPool)")
            }
        }
    }
}
