import Adapters
import Consent
import FoundationEssentials
import Mediation
import SecureSignals
import SharedTypes

/// The configuration file, as written (`config/daemon.json` documents every option). Unknown
/// keys are errors; relative paths resolve against the file's directory.
@Settings
struct DaemonConfiguration: Codable, Sendable {
    // Each section is read on its own: while --check-config collects, one section's failure
    // does not hide another's.
    var socket = SocketSettings()
    var access = AccessSettings()
    var apps = AppSettings()
    /// Where the device's advertising id is read; none is ever sent without it.
    var advertisingID: AdvertisingIDSettings?
    var stateDirectory: String?
    var recipients: [String: RecipientSettings] = [:]
    var deadlines = DeadlineSettings()
    var circuitBreaker = CircuitBreakerSettings()
    var adapters: [AdapterSettings] = []
    var adUnits: [String: AdUnitSettings] = [:]
    var adNetworks: [String: AdNetworkSettings] = [:]
    var limits = LimitSettings()
    var trackers = TrackerSettings()
    var rewards = RewardSettings()
    var ssv = SSVSettings()
    var events = EventSettings()
    var privacy = PrivacySettings()
    var logLevel: String?
    var metrics = MetricsSettings()
    var inspect = InspectSettings()
    var performance = PerformanceSettings()

    @Settings
    struct SocketSettings: Codable, Sendable {
        var path: String?
        /// Octal, as a string: "0660".
        var mode = "0660"
        /// A group name or number; the socket's group, and allowed to connect.
        @Nullable var group: String?

        func validate(at codingPath: [any CodingKey]) throws {
            guard let value = UInt16(mode, radix: 8), value <= 0o777 else {
                throw StrictJSON.Failure(
                    at: codingPath, CodingKeys.mode, "must be an octal mode such as \"0660\", not \"\(mode)\"")
            }
        }
    }

    @Settings
    struct AccessSettings: Codable, Sendable {
        /// Who may connect besides the daemon's own uid and root (always allowed).
        var allowedUIDs: [UInt32] = []
        /// Groups whose members may connect; the socket's group always may.
        var allowedGIDs: [UInt32] = []
    }

    @WireKeys
    struct AdapterSettings: Codable, Sendable {
        var name: String
        var type: String?
        /// A program that is the adapter; exclusive with `type`.
        var exec: String?
        var args: [String] = []
        var env: [String: String] = [:]
        @WireName("stop_grace_ms") var stopGraceMilliseconds: Int?
        var recipients: [String]
        @WireName("timeout_ms") var timeoutMilliseconds: Int?
        @WireName("init_timeout_ms") var initTimeoutMilliseconds: Int?
        @WireName("cache_ttl_ms") var cacheTTLMilliseconds: Int
        /// A built-in's options, decoded by its type (the resolver); a program's, passed to it.
        var options: [String: JSONValue]
        var circuitBreaker: CircuitBreakerSettings?
        var consent: ConsentSettings?

        /// How long a program has after SIGTERM before SIGKILL, when `stop_grace_ms` is not set.
        static let defaultStopGraceMilliseconds = 3000

        init(
            name: String, type: String? = nil, recipients: [String], cacheTTLMilliseconds: Int = 0,
            options: [String: JSONValue] = [:]
        ) {
            self.name = name
            self.type = type
            self.recipients = recipients
            self.cacheTTLMilliseconds = cacheTTLMilliseconds
            self.options = options
        }

        /// Written by hand: which keys may be present depends on `exec` (a program's `args`,
        /// `env` and `stop_grace_ms`), which values alone cannot say.
        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            type = try container.decodeIfPresent(String.self, forKey: .type)
            exec = try container.decodeIfPresent(String.self, forKey: .exec)
            if exec != nil, type != nil {
                throw StrictJSON.Failure(
                    path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.exec]),
                    reason: "an adapter is either a built-in \"type\" or a program to \"exec\", not both")
            }
            if exec == nil {
                for key in [CodingKeys.args, .env, .stopGraceMilliseconds] where container.contains(key) {
                    throw StrictJSON.Failure(
                        path: StrictJSON.keyPath(decoder.codingPath + [key]), reason: "only applies with \"exec\"")
                }
            }
            args = try container.decodeIfPresent([String].self, forKey: .args) ?? []
            env = try container.decodeIfPresent([String: String].self, forKey: .env) ?? [:]
            for key in env.keys.sorted()
            where key.isEmpty || key.contains("=") || key.utf8.contains(0) || env[key]?.utf8.contains(0) == true {
                throw StrictJSON.Failure(
                    path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.env]),
                    reason: "\"\(key)\" cannot be set: a variable's name has no '=' and neither part a NUL byte")
            }
            // Shutdown as a whole may take 15 s (systemd allows 20): the grace must fit in it.
            stopGraceMilliseconds = try container.setting(.stopGraceMilliseconds, default: nil, in: 0...10_000)
            circuitBreaker = try container.decodeIfPresent(CircuitBreakerSettings.self, forKey: .circuitBreaker)
            recipients = try container.decodeIfPresent([String].self, forKey: .recipients) ?? []
            // A timeout of 0 would fail every collection: timeouts start at 1 ms, a cache TTL at 0 (off).
            timeoutMilliseconds = try container.setting(.timeoutMilliseconds, default: nil, in: 1...3_600_000)
            initTimeoutMilliseconds = try container.setting(.initTimeoutMilliseconds, default: nil, in: 1...3_600_000)
            cacheTTLMilliseconds = try container.setting(.cacheTTLMilliseconds, default: 0, in: 0...3_600_000)
            options = try container.decodeIfPresent([String: JSONValue].self, forKey: .options) ?? [:]
            consent = try container.decodeIfPresent(ConsentSettings.self, forKey: .consent)
        }

        /// Only the keys that `init(from:)` accepts for this kind of adapter: `args`, `env` and
        /// `stop_grace_ms` with `exec` alone.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(type, forKey: .type)
            if let exec {
                try container.encode(exec, forKey: .exec)
                try container.encode(args, forKey: .args)
                try container.encode(env, forKey: .env)
                try container.encodeIfPresent(stopGraceMilliseconds, forKey: .stopGraceMilliseconds)
            }
            try container.encode(recipients, forKey: .recipients)
            try container.encodeIfPresent(timeoutMilliseconds, forKey: .timeoutMilliseconds)
            try container.encodeIfPresent(initTimeoutMilliseconds, forKey: .initTimeoutMilliseconds)
            try container.encode(cacheTTLMilliseconds, forKey: .cacheTTLMilliseconds)
            try container.encode(options, forKey: .options)
            try container.encodeIfPresent(circuitBreaker, forKey: .circuitBreaker)
            try container.encodeIfPresent(consent, forKey: .consent)
        }
    }
}

extension CircuitBreakerSettings: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case failures
        case coolDownMilliseconds = "cool_down_ms"
    }

    /// Written by hand: the breaker's own type (SecureSignals) holds a `Duration`, which the
    /// file spells in milliseconds.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let standard = CircuitBreakerSettings()
        let failures = try container.setting(.failures, default: standard.failures, in: 0...1000)
        let coolDown = try container.setting(
            .coolDownMilliseconds, default: Int(standard.coolDown.wholeMilliseconds), in: 1...3_600_000)
        self.init(failures: failures, coolDown: .milliseconds(coolDown))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(failures, forKey: .failures)
        try container.encode(Int(coolDown.wholeMilliseconds), forKey: .coolDownMilliseconds)
    }
}
