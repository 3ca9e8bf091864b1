/// A token bucket: `burst` events at once, then `perSecond` on average. It keeps its own
/// count of what it refused, so the next admitted event can say how many were left out.
struct RateLimit {
    let burst: Double
    let perSecond: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant?
    private(set) var refusedSinceLastAdmitted = 0

    init(burst: Int, perSecond: Int) {
        self.burst = Double(burst)
        self.perSecond = Double(perSecond)
        self.tokens = Double(burst)
    }

    /// Whether an event at `now` may go through; if so, how many were refused before it.
    mutating func admit(at now: ContinuousClock.Instant) -> (admitted: Bool, refusedBefore: Int) {
        if let last {
            let elapsed = now - last
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(burst, tokens + seconds * perSecond)
        }
        last = now
        guard tokens >= 1 else {
            refusedSinceLastAdmitted += 1
            return (false, 0)
        }
        tokens -= 1
        defer { refusedSinceLastAdmitted = 0 }
        return (true, refusedSinceLastAdmitted)
    }
}
