/// Where an adapter is in its life.
public enum AdapterState: String, Sendable, Codable {
    case initializing
    case ready
    case failed
    /// Still initializing after its init timeout; it serves once ready.
    case timedOut = "timed_out"
}

/// One adapter as `GET /v1/adapters` shows it: every field, unknown ones as null, so that
/// clients see one shape.
@WireKeys
@MemberwiseInit
public struct AdapterStatus: Sendable, Codable, Equatable {
    public var name: String
    public var kind: String
    public var state: AdapterState
    public var description: String
    @WireName("init_latency_ms") @Nullable public var initLatencyMilliseconds: Double?
    /// Nil until a program has told its own.
    @Nullable public var adapterVersion: SemanticVersion?
    @Nullable public var sdkVersion: SemanticVersion?
    public var circuit: CircuitStatus
    /// For `exec` adapters: the program's process, restarts and faults.
    @Nullable public var program: ProgramStatus?
}
