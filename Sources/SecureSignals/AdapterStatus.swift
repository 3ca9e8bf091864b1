/// Where an adapter is in its life.
public enum AdapterState: String, Sendable, Codable {
    case initializing
    case ready
    case failed
    /// Still initializing after its init timeout; it serves once ready.
    case timedOut = "timed_out"
}

/// One adapter as `GET /v1/adapters` shows it.
public struct AdapterStatus: Sendable, Codable, Equatable {
    public var name: String
    public var kind: String
    public var state: AdapterState
    public var description: String
    public var initLatencyMilliseconds: Double?
    /// Nil until a program has told its own.
    public var adapterVersion: SemanticVersion?
    public var sdkVersion: SemanticVersion?
    public var circuit: CircuitStatus
    /// For `exec` adapters: the program's process, restarts and faults.
    public var program: ProgramStatus?

    public init(
        name: String, kind: String, state: AdapterState, description: String, initLatencyMilliseconds: Double?,
        adapterVersion: SemanticVersion?, sdkVersion: SemanticVersion?, circuit: CircuitStatus, program: ProgramStatus?
    ) {
        self.name = name
        self.kind = kind
        self.state = state
        self.description = description
        self.initLatencyMilliseconds = initLatencyMilliseconds
        self.adapterVersion = adapterVersion
        self.sdkVersion = sdkVersion
        self.circuit = circuit
        self.program = program
    }

    enum CodingKeys: String, CodingKey {
        case name, kind, state, description, circuit, program
        case initLatencyMilliseconds = "init_latency_ms"
        case adapterVersion = "adapter_version"
        case sdkVersion = "sdk_version"
    }

    /// Every field, unknown ones as null, so that clients see one shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(kind, forKey: .kind)
        try container.encode(state, forKey: .state)
        try container.encode(description, forKey: .description)
        try container.encode(initLatencyMilliseconds, forKey: .initLatencyMilliseconds)
        try container.encode(adapterVersion, forKey: .adapterVersion)
        try container.encode(sdkVersion, forKey: .sdkVersion)
        try container.encode(circuit, forKey: .circuit)
        try container.encode(program, forKey: .program)
    }
}

/// One sealed signal in a collection's answer.
public struct SealedSignal: Sendable, Codable, Equatable {
    public var adapter: String
    public var adapterVersion: SemanticVersion
    public var sdkVersion: SemanticVersion
    /// The recipient it is sealed for; nil when the adapter sealed it itself.
    public var recipient: String?
    public var keyID: Int?
    public var envelope: String
    /// Whether the plaintext came from the adapter's cache (the envelope is always new).
    public var cached: Bool

    enum CodingKeys: String, CodingKey {
        case adapter, recipient, envelope, cached
        case adapterVersion = "adapter_version"
        case sdkVersion = "sdk_version"
        case keyID = "key_id"
    }

    public init(
        adapter: String, adapterVersion: SemanticVersion, sdkVersion: SemanticVersion, recipient: String?, keyID: Int?,
        envelope: String, cached: Bool
    ) {
        self.adapter = adapter
        self.adapterVersion = adapterVersion
        self.sdkVersion = sdkVersion
        self.recipient = recipient
        self.keyID = keyID
        self.envelope = envelope
        self.cached = cached
    }

    /// Every field, `recipient` and `key_id` as null for a signal the adapter sealed itself.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(adapter, forKey: .adapter)
        try container.encode(adapterVersion, forKey: .adapterVersion)
        try container.encode(sdkVersion, forKey: .sdkVersion)
        try container.encode(recipient, forKey: .recipient)
        try container.encode(keyID, forKey: .keyID)
        try container.encode(envelope, forKey: .envelope)
        try container.encode(cached, forKey: .cached)
    }
}

/// An adapter that could not answer a request, and why.
public struct AdapterFailure: Sendable, Codable, Equatable {
    public var adapter: String
    public var code: SignalError.Code
    public var message: String

    public init(adapter: String, code: SignalError.Code, message: String) {
        self.adapter = adapter
        self.code = code
        self.message = message
    }
}

/// The answer to one request: what arrived in time, and an error for each adapter that did not.
public struct CollectionResult: Sendable, Codable, Equatable {
    public var requestID: String
    public var signals: [SealedSignal]
    public var errors: [AdapterFailure]

    enum CodingKeys: String, CodingKey {
        case signals, errors
        case requestID = "request_id"
    }
}

/// What a bidder finds inside an envelope after opening it.
public struct SignalPayload: Sendable, Codable, Equatable {
    public var v: Int
    public var adapter: String
    public var adapterVersion: SemanticVersion
    public var sdkVersion: SemanticVersion
    public var requestID: String
    public var issuedAtMilliseconds: Int64
    /// Base64 of the raw signal.
    public var signal: String

    public init(
        v: Int, adapter: String, adapterVersion: SemanticVersion, sdkVersion: SemanticVersion, requestID: String,
        issuedAtMilliseconds: Int64, signal: String
    ) {
        self.v = v
        self.adapter = adapter
        self.adapterVersion = adapterVersion
        self.sdkVersion = sdkVersion
        self.requestID = requestID
        self.issuedAtMilliseconds = issuedAtMilliseconds
        self.signal = signal
    }

    enum CodingKeys: String, CodingKey {
        case v, adapter, signal
        case adapterVersion = "adapter_version"
        case sdkVersion = "sdk_version"
        case requestID = "request_id"
        case issuedAtMilliseconds = "issued_at_ms"
    }
}
