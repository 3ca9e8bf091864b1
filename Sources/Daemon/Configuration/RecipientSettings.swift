import SharedTypes

extension DaemonConfiguration {
    /// `recipients.NAME`: the demo key, key configuration files, a key URL, or a key URL with
    /// files as its fallback.
    @WireKeys
    struct RecipientSettings: Codable, Sendable {
        /// Key configuration files, newest first: the first is used for sealing.
        var keyConfigs: [String]
        /// The public demo key built in (what the embedded default seals for), instead of files.
        var demoKey: Bool
        /// Where the recipient publishes its `application/ohttp-keys` key set.
        @WireName("key_url") var keyURL: String?
        /// The certificate authorities that may sign the key URL's server (PEM), instead of
        /// the system's.
        var caFile: String?
        @WireName("default_max_age_ms") var defaultMaxAgeMilliseconds: Int
        @WireName("max_stale_ms") var maxStaleMilliseconds: Int

        static let defaultMaxAgeDefault = 86_400_000
        static let maxStaleDefault = 7 * 86_400_000
        /// Longer than the clamp of a set's lifetime means nothing; longer than a year of
        /// staleness is a mistake.
        static let maxStaleLimit = 365 * 86_400_000

        init(keyConfigs: [String]) {
            self.keyConfigs = keyConfigs
            self.demoKey = false
            defaultMaxAgeMilliseconds = Self.defaultMaxAgeDefault
            maxStaleMilliseconds = Self.maxStaleDefault
        }

        static let demo: RecipientSettings = {
            var demo = RecipientSettings(keyConfigs: [])
            demo.demoKey = true
            return demo
        }()

        /// Written by hand: which keys may be present depends on `demo_key` and `key_url`,
        /// which values alone cannot say.
        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func failure(_ key: CodingKeys, _ reason: String) -> StrictJSON.Failure {
                StrictJSON.Failure(path: StrictJSON.keyPath(decoder.codingPath + [key]), reason: reason)
            }
            demoKey = try container.decodeIfPresent(Bool.self, forKey: .demoKey) ?? false
            keyURL = try container.decodeIfPresent(String.self, forKey: .keyURL)
            caFile = try container.decodeIfPresent(String.self, forKey: .caFile)
            defaultMaxAgeMilliseconds = try container.setting(
                .defaultMaxAgeMilliseconds, default: Self.defaultMaxAgeDefault, in: 1...(7 * 86_400_000))
            maxStaleMilliseconds = try container.setting(
                .maxStaleMilliseconds, default: Self.maxStaleDefault, in: 0...Self.maxStaleLimit)
            if demoKey {
                for key in [CodingKeys.keyConfigs, .keyURL] where container.contains(key) {
                    throw failure(key, "a recipient has \"demo_key\": true or its own keys, not both")
                }
            }
            if keyURL == nil {
                for key in [CodingKeys.caFile, .defaultMaxAgeMilliseconds, .maxStaleMilliseconds]
                where container.contains(key) {
                    throw failure(key, "applies only to a recipient with a \"key_url\"")
                }
            }
            keyConfigs = try container.decodeIfPresent([String].self, forKey: .keyConfigs) ?? []
            guard demoKey || keyURL != nil || !keyConfigs.isEmpty else {
                throw failure(
                    .keyConfigs,
                    container.contains(.keyConfigs)
                        ? "must list at least one file" : "a recipient needs \"key_configs\", a \"key_url\" or both")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if demoKey {
                try container.encode(true, forKey: .demoKey)
                return
            }
            if !keyConfigs.isEmpty { try container.encode(keyConfigs, forKey: .keyConfigs) }
            guard let keyURL else { return }
            try container.encode(keyURL, forKey: .keyURL)
            try container.encodeIfPresent(caFile, forKey: .caFile)
            try container.encode(defaultMaxAgeMilliseconds, forKey: .defaultMaxAgeMilliseconds)
            try container.encode(maxStaleMilliseconds, forKey: .maxStaleMilliseconds)
        }
    }
}
