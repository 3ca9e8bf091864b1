import Consent
import FoundationEssentials
import SharedTypes
import SignalCrypto

/// One configured adapter: which type or program, for whom its signals are sealed, and its limits.
public struct AdapterConfiguration: Sendable, Equatable {
    /// The instance name requests and statuses use (unique).
    public var name: String
    /// The registered adapter type; the same as `name` unless several instances of one type run.
    /// Ignored when `program` is set.
    public var type: String
    /// The program that is the adapter (`exec`), or nil for a compiled-in type.
    public var program: ProgramSpec?
    public var recipients: [String]
    public var timeout: Duration
    public var initTimeout: Duration
    /// How long a plaintext may be reused (re-sealed fresh each time); zero turns caching off.
    public var cacheTTL: Duration
    /// A built-in's options, decoded by its type when the configuration was read; nil: its
    /// defaults. A program's options are its `program`'s.
    public var options: DecodedOptions?
    public var circuitBreaker: CircuitBreakerSettings
    /// What it needs from the user's consent: the configuration's `consent`, else its type's.
    public var consent: ConsentRequirement

    public init(
        name: String, type: String? = nil, program: ProgramSpec? = nil, recipients: [String],
        timeout: Duration = standardTimeout, initTimeout: Duration = standardInitTimeout, cacheTTL: Duration = .zero,
        options: DecodedOptions? = nil, circuitBreaker: CircuitBreakerSettings = CircuitBreakerSettings(),
        consent: ConsentRequirement = .none
    ) {
        self.consent = consent
        self.name = name
        self.type = program == nil ? (type ?? name) : "exec"
        self.program = program
        self.circuitBreaker = circuitBreaker
        self.recipients = recipients
        self.timeout = timeout
        self.initTimeout = initTimeout
        self.cacheTTL = cacheTTL
        self.options = options
    }

    /// Whether `other` describes the same adapter, so that a reload may keep it running.
    func makesTheSameAdapter(as other: AdapterConfiguration) -> Bool {
        type == other.type && program == other.program && options == other.options
    }
}

/// A bidder that may read signals: envelopes are sealed with the key its `keys` hold now.
@MemberwiseInit
public struct Recipient: Sendable {
    public var name: String
    public var keys: RecipientKeys

    /// A recipient with one fixed key.
    public init(name: String, sealer: EnvelopeSealer) {
        self.init(name: name, keys: RecipientKeys(files: .init(sealer: sealer, keyIDs: [sealer.header.keyID])))
    }
}

/// Everything the collector needs; the daemon builds it from its configuration file.
@MemberwiseInit
public struct CollectorConfiguration: Sendable {
    public var adapters: [AdapterConfiguration]
    public var recipients: [String: Recipient]
    /// The default deadline of a whole request: collection and encryption.
    public var requestTimeout: Duration = Self.standardRequestTimeout
    /// The largest signal an adapter may return, in bytes.
    public var maxSignalBytes: Int = Self.standardMaxSignalBytes
    public var stateDirectory: URL
    /// The ephemeral keys made ahead of need for seals (`performance.ephemeral_key_pool`); 0
    /// makes each inline.
    public var ephemeralKeyPool: Int = Self.standardEphemeralKeyPool
}

extension AdapterConfiguration {
    /// An adapter's deadline to answer, unless the configuration sets one.
    public static let standardTimeout = Duration.milliseconds(50)
    /// An adapter's deadline to be ready, unless the configuration sets one.
    public static let standardInitTimeout = Duration.seconds(10)
}

extension CollectorConfiguration {
    /// A signals request's deadline, unless the configuration sets one.
    public static let standardRequestTimeout = Duration.milliseconds(500)
    /// The largest signal, unless the configuration sets it.
    public static let standardMaxSignalBytes = 4096
    /// Ephemeral keys made ahead of need, unless the configuration sets it.
    public static let standardEphemeralKeyPool = 64
}
