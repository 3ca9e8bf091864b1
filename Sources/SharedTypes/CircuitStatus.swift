/// A circuit breaker's state as `GET /v1/adapters` shows it.
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
    public var retryInMilliseconds: Double?
    /// How many times it opened since the daemon started.
    public var opened: Int

    public init(state: State, consecutiveFailures: Int, retryInMilliseconds: Double?, opened: Int) {
        self.state = state
        self.consecutiveFailures = consecutiveFailures
        self.retryInMilliseconds = retryInMilliseconds
        self.opened = opened
    }

    enum CodingKeys: String, CodingKey {
        case state, opened
        case consecutiveFailures = "consecutive_failures"
        case retryInMilliseconds = "retry_in_ms"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(consecutiveFailures, forKey: .consecutiveFailures)
        try container.encode(retryInMilliseconds, forKey: .retryInMilliseconds)
        try container.encode(opened, forKey: .opened)
    }
}
