import Foundation
import SecureSignals
import SharedTypes

/// The configuration file, as written (`config/daemon.json` documents every option). Unknown
/// keys are errors; relative paths resolve against the file's directory.
@WireKeys
struct DaemonConfiguration: Codable, Sendable {
    var socket = SocketSettings()
    var access = AccessSettings()
    var stateDirectory: String?
    var recipients: [String: RecipientSettings] = [:]
    var deadlines = Deadlines()
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
    var performance = PerformanceSettings()

    init() {}

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Each section is a part: while --check-config collects, one section's failure does not
        // hide another's.
        socket = try container.part(.socket, default: SocketSettings())
        access = try container.part(.access, default: AccessSettings())
        stateDirectory = try container.part(.stateDirectory, default: nil)
        recipients = try container.part(.recipients, default: [:])
        deadlines = try container.part(.deadlines, default: Deadlines())
        circuitBreaker = try container.part(.circuitBreaker, default: CircuitBreakerSettings())
        adapters = try container.part(.adapters, default: [])
        adUnits = try container.part(.adUnits, default: [:])
        adNetworks = try container.part(.adNetworks, default: [:])
        limits = try container.part(.limits, default: LimitSettings())
        trackers = try container.part(.trackers, default: TrackerSettings())
        rewards = try container.part(.rewards, default: RewardSettings())
        ssv = try container.part(.ssv, default: SSVSettings())
        events = try container.part(.events, default: EventSettings())
        privacy = try container.part(.privacy, default: PrivacySettings())
        logLevel = try container.part(.logLevel, default: nil)
        metrics = try container.part(.metrics, default: MetricsSettings())
        performance = try container.part(.performance, default: PerformanceSettings())
    }

    @WireKeys
    struct SocketSettings: Codable, Sendable {
        var path: String?
        /// Octal, as a string: "0660".
        var mode = "0660"
        /// A group name or number; the socket's group, and allowed to connect.
        @Nullable var group: String?

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            path = try container.decodeIfPresent(String.self, forKey: .path)
            mode = try container.decodeIfPresent(String.self, forKey: .mode) ?? "0660"
            group = try container.decodeIfPresent(String.self, forKey: .group)
            guard let value = UInt16(mode, radix: 8), value <= 0o777 else {
                throw StrictJSON.Failure(
                    path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.mode]),
                    reason: "must be an octal mode such as \"0660\", not \"\(mode)\"")
            }
        }
    }

    @WireKeys
    struct AccessSettings: Codable, Sendable {
        /// Who may connect besides the daemon's own uid and root (always allowed).
        var allowedUIDs: [UInt32] = []
        /// Groups whose members may connect; the socket's group always may.
        var allowedGIDs: [UInt32] = []

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            allowedUIDs = try container.decodeIfPresent([UInt32].self, forKey: .allowedUIDs) ?? []
            allowedGIDs = try container.decodeIfPresent([UInt32].self, forKey: .allowedGIDs) ?? []
        }
    }

    @WireKeys
    struct Deadlines: Codable, Sendable {
        @WireName("request_timeout_ms") var requestTimeoutMilliseconds = 500
        @WireName("adapter_timeout_ms") var adapterTimeoutMilliseconds = 50
        @WireName("init_timeout_ms") var initTimeoutMilliseconds = 10_000
        var maxSignalBytes = 4096

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            requestTimeoutMilliseconds = try container.positive(.requestTimeoutMilliseconds, default: 500, max: 60_000)
            adapterTimeoutMilliseconds = try container.positive(.adapterTimeoutMilliseconds, default: 50, max: 60_000)
            initTimeoutMilliseconds = try container.positive(.initTimeoutMilliseconds, default: 10_000, max: 600_000)
            maxSignalBytes = try container.positive(.maxSignalBytes, default: 4096, max: 1 << 20)
        }
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
        var options: AdapterOptions
        var circuitBreaker: CircuitBreakerSettings?
        var consent: ConsentSettings?

        /// How long a program has after SIGTERM before SIGKILL, when `stop_grace_ms` is not set.
        static let defaultStopGraceMilliseconds = 3000

        init(
            name: String, type: String? = nil, recipients: [String], cacheTTLMilliseconds: Int = 0,
            options: AdapterOptions = AdapterOptions()
        ) {
            self.name = name
            self.type = type
            self.recipients = recipients
            self.cacheTTLMilliseconds = cacheTTLMilliseconds
            self.options = options
        }

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
            stopGraceMilliseconds = try container.wholeNumber(.stopGraceMilliseconds)
            circuitBreaker = try container.decodeIfPresent(CircuitBreakerSettings.self, forKey: .circuitBreaker)
            recipients = try container.decodeIfPresent([String].self, forKey: .recipients) ?? []
            timeoutMilliseconds = try container.wholeNumber(.timeoutMilliseconds)
            initTimeoutMilliseconds = try container.wholeNumber(.initTimeoutMilliseconds)
            cacheTTLMilliseconds = try container.wholeNumber(.cacheTTLMilliseconds) ?? 0
            options = try container.decodeIfPresent(AdapterOptions.self, forKey: .options) ?? AdapterOptions()
            consent = try container.decodeIfPresent(ConsentSettings.self, forKey: .consent)
            // A timeout of 0 would fail every collection: timeouts start at 1 ms, a cache TTL at 0 (off).
            for (key, value, minimum) in [
                (CodingKeys.timeoutMilliseconds, timeoutMilliseconds, 1),
                (.initTimeoutMilliseconds, initTimeoutMilliseconds, 1),
                (.cacheTTLMilliseconds, cacheTTLMilliseconds, 0),
            ] {
                if let value, value < minimum || value > 3_600_000 {
                    throw StrictJSON.Failure(
                        path: StrictJSON.keyPath(decoder.codingPath + [key]),
                        reason: "must be between \(minimum) and 3600000, not \(value)")
                }
            }
            // Shutdown as a whole may take 15 s (systemd allows 20): the grace must fit in it.
            if let grace = stopGraceMilliseconds, !(0...10_000).contains(grace) {
                throw StrictJSON.Failure(
                    path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.stopGraceMilliseconds]),
                    reason: "must be between 0 and 10000, not \(grace)")
            }
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

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let failures = try container.wholeNumber(.failures) ?? 3
        guard (0...1000).contains(failures) else {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.failures]),
                reason: "must be between 0 (never open) and 1000, not \(failures)")
        }
        let coolDown = try container.positive(.coolDownMilliseconds, default: 10_000, max: 3_600_000)
        self.init(failures: failures, coolDown: .milliseconds(coolDown))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(failures, forKey: .failures)
        try container.encode(Int(coolDown.wholeMilliseconds), forKey: .coolDownMilliseconds)
    }
}

extension KeyedDecodingContainer {
    /// A whole number in 1...max, or `fallback` when absent; the error names the key.
    func positive(_ key: Key, default fallback: Int, max: Int) throws -> Int {
        try positive(key, max: max) ?? fallback
    }

    /// A whole number in 1...max, or nil when absent (or null); the error names the key.
    func positive(_ key: Key, max: Int) throws -> Int? {
        guard let value = try wholeNumber(key) else { return nil }
        guard (1...max).contains(value) else {
            throw StrictJSON.Failure(
                path: StrictJSON.keyPath(codingPath + [key]), reason: "must be between 1 and \(max), not \(value)")
        }
        return value
    }
}
