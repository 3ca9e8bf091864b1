/// `GET /v1/health`: liveness, how many adapters are in each state, and the daemon's version.
@WireKeys
@MemberwiseInit
public struct HealthReport: Codable, Sendable, Equatable {
    public var status: String
    /// Adapters by state: `initializing`, `ready`, `failed`, `timed_out`.
    public var adapters: [String: Int]
    @WireName("uptime_s") public var uptimeSeconds: Double
    public var version: String
    /// What is allowed but should not reach production, e.g. sealing for the public demo key.
    public var warnings: [String]
}
