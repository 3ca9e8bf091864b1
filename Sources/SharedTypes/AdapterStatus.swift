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
