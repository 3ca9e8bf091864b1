/// How long to wait after failures in a row, the one rule behind every retry the daemon makes
/// (tracker pings, ad loads, adapter programs, key sets): the pause after the n-th failure is
/// `first` doubled n - 1 times, at most `maximum`, then scaled by a factor drawn from `jitter`
/// so that a fleet of devices does not retry in step (1...1: none).
public struct Backoff: Sendable, Equatable {
    public var first: Duration
    public var maximum: Duration
    public var jitter: ClosedRange<Double>

    public init(first: Duration, maximum: Duration, jitter: ClosedRange<Double> = 1...1) {
        self.first = first
        self.maximum = max(first, maximum)
        self.jitter = jitter
    }

    /// The pause before the next try, after `failures` failures in a row (at least 1).
    public func delay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(0, failures - 1), 30)
        let ceiling = min(maximum, first * (1 << doublings))
        guard jitter.lowerBound != jitter.upperBound else { return ceiling * jitter.lowerBound }
        return ceiling * Double.random(in: jitter)
    }
}
