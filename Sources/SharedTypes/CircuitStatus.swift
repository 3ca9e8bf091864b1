/// A circuit breaker's state as `GET /v1/adapters` shows it.
@WireKeys
@MemberwiseInit
public struct CircuitStatus: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        case closed
        case open
        /// The cool-down is over; the next request is the trial.
        case halfOpen = "half_open"
    }

    public var state: State
    public var consecutiveFailures: Int
    /// How long it stays open, while open.
    @WireName("retry_in_ms") @Nullable public var retryInMilliseconds: Double?
    /// How many times it opened since the daemon started.
    public var opened: Int
}
