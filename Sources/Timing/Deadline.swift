/// A moment on a clock, known by how long is left until it: what a request carries to code
/// that counts its time on the caller's clock without knowing the clock's type.
public struct Deadline: Sendable {
    /// The time on the clock since an origin of its own, read anew at each call.
    private let elapsed: @Sendable () -> Duration
    /// The moment, counted from that origin.
    private let end: Duration

    private init(elapsed: @escaping @Sendable () -> Duration, end: Duration) {
        self.elapsed = elapsed
        self.end = end
    }

    /// `duration` from now on `clock`.
    public init<C: Clock>(after duration: Duration, on clock: C) where C.Duration == Duration {
        self.init(elapsed: clock.stopwatch(), end: duration)
    }

    /// How long is left until it on its clock; negative once it has passed.
    public var remaining: Duration { end - elapsed() }

    /// The earlier of it and `duration` from now, on its clock.
    public func limited(to duration: Duration) -> Deadline {
        Deadline(elapsed: elapsed, end: min(end, elapsed() + duration))
    }
}

extension Clock where Duration == Swift.Duration {
    /// The time on this clock since now, read at each call: a stopwatch that does not need the
    /// clock's type (an `any Clock<Duration>`'s too).
    package func stopwatch() -> @Sendable () -> Duration {
        let start = now
        return { start.duration(to: self.now) }
    }
}
