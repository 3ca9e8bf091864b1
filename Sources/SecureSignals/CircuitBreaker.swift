import SharedTypes
import Timing

/// When to stop asking an adapter that keeps failing: after `failures` consecutive failures it
/// is skipped, answering `circuit_open` at once, for `coolDown`; then one request tries it
/// again (half open), and closes the circuit by succeeding or opens it anew by failing.
@MemberwiseInit
public struct CircuitBreakerSettings: Sendable, Equatable {
    /// Zero turns the breaker off.
    public var failures: Int = 3
    public var coolDown: Duration = .seconds(10)
}

/// The breaker of one adapter, on instants of its host's clock. Not thread-safe: its host
/// actor owns it.
struct CircuitBreaker<Instant: InstantProtocol> where Instant.Duration == Duration {
    enum Decision: Equatable {
        /// Ask the adapter.
        case ask
        /// Ask the adapter: it is the one trial after a cool-down.
        case trial
        /// Do not ask; the circuit stays open this much longer.
        case skip(Duration)
    }

    var settings: CircuitBreakerSettings
    private(set) var consecutiveFailures = 0
    private(set) var opened = 0
    private var openedAt: Instant?
    private var trialInFlight = false

    init(settings: CircuitBreakerSettings) {
        self.settings = settings
    }

    mutating func decide(at now: Instant) -> Decision {
        guard let openedAt else { return .ask }
        if settings.failures == 0 {
            // Turned off by a reload while open.
            self.openedAt = nil
            trialInFlight = false
            return .ask
        }
        let elapsed = openedAt.duration(to: now)
        if elapsed < settings.coolDown { return .skip(settings.coolDown - elapsed) }
        if trialInFlight { return .skip(.zero) }
        trialInFlight = true
        return .trial
    }

    /// Records an answer of the adapter to a request that was (`trial`) or was not the trial;
    /// returns whether it opened the circuit. While the circuit is open only the trial's answer
    /// counts: a request from before it opened decides nothing.
    @discardableResult
    mutating func record(failed: Bool, trial: Bool, at now: Instant) -> Bool {
        if openedAt != nil {
            guard trial else { return false }
            trialInFlight = false
            guard failed else {
                consecutiveFailures = 0
                openedAt = nil
                return false
            }
            consecutiveFailures += 1
            openedAt = now
            opened += 1
            return true
        }
        guard failed else {
            consecutiveFailures = 0
            return false
        }
        consecutiveFailures += 1
        guard settings.failures > 0, consecutiveFailures >= settings.failures else { return false }
        openedAt = now
        opened += 1
        return true
    }

    /// The trial's caller went away before the adapter answered: the answer tells nothing, so
    /// the next request after the cool-down is the trial.
    mutating func abandonTrial() {
        trialInFlight = false
    }

    /// Closes the circuit and forgets the failures: the adapter was reset.
    mutating func close() {
        consecutiveFailures = 0
        openedAt = nil
        trialInFlight = false
    }

    func status(at now: Instant) -> CircuitStatus {
        guard let openedAt else {
            return CircuitStatus(
                state: .closed, consecutiveFailures: consecutiveFailures, retryInMilliseconds: nil, opened: opened)
        }
        let remaining = settings.coolDown - openedAt.duration(to: now)
        if remaining > .zero {
            return CircuitStatus(
                state: .open, consecutiveFailures: consecutiveFailures,
                retryInMilliseconds: milliseconds(remaining), opened: opened)
        }
        return CircuitStatus(
            state: .halfOpen, consecutiveFailures: consecutiveFailures, retryInMilliseconds: nil, opened: opened)
    }

    var isOpen: Bool { openedAt != nil }
}
