/// One signals request as the inspector shows it (`GET /v1/inspect/signals`): who asked, under
/// what privacy state, and each adapter's answer with its latency, cache and circuit. Never a
/// signal's value or a consent string.
@WireKeys
@MemberwiseInit
public struct SignalsTrace: Sendable, Codable, Equatable {
    /// The trace's number, shared with load traces.
    public var id: UInt64
    public var requestID: String
    /// The app that asked (or that the ad request asking is for).
    public var app: String?
    @WireName("started_at_ms") public var startedAtMilliseconds: Int64
    @WireName("duration_ms") public var durationMilliseconds: Double
    /// The request's deadline.
    @WireName("deadline_ms") public var deadlineMilliseconds: Double
    public var privacy: PrivacySummary
    /// Each adapter asked, or refused before asking, in the order asked.
    public var adapters: [AdapterTrace]
}

/// One adapter's part in a signals request.
@WireKeys
@MemberwiseInit
public struct AdapterTrace: Sendable, Codable, Equatable {
    public var adapter: String
    /// `signal`, `cached`, or the error code it failed with (`timeout`, `consent_missing`, ...).
    public var outcome: String
    /// How long it took to answer; nil when it was not asked.
    @WireName("latency_ms") public var latencyMilliseconds: Double?
    /// Its circuit breaker after the answer; nil when it was not asked.
    public var circuit: CircuitStatus.State?
    /// The recipients its signal was sealed for.
    public var sealedFor: [String]
    /// Why it failed or was not asked (the consent decision's reason).
    public var message: String?
}
