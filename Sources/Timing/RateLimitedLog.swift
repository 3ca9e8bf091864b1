import Synchronization

/// Decides whether an event is logged: at most once per key (a peer and what happened to it, a
/// fault that lasts) per interval, so that a client hammering a limit or a failing disk cannot
/// flood the journal. What is not logged is still counted in metrics.
public final class RateLimitedLog<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    private let clock: C
    private let interval: Duration
    private let lastLogged = Mutex<[String: C.Instant]>([:])

    public init(clock: C, interval: Duration = .seconds(60)) {
        self.clock = clock
        self.interval = interval
    }

    /// Whether `key`'s event is logged now; if it is, the next one waits a whole interval.
    public func shouldLog(_ key: String) -> Bool {
        let now = clock.now
        let interval = self.interval
        return lastLogged.withLock { lastLogged in
            if let last = lastLogged[key], last.duration(to: now) < interval { return false }
            // Forget what is past its interval, so that many peers cannot grow the table.
            if lastLogged.count >= 1024 { lastLogged = lastLogged.filter { $0.value.duration(to: now) < interval } }
            lastLogged[key] = now
            return true
        }
    }

    /// How many keys it remembers now.
    public var keysHeld: Int { lastLogged.withLock { $0.count } }
}
