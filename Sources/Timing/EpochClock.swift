import FoundationEssentials

/// Wall-clock time in milliseconds since 1970: what a stored record keeps across restarts, where
/// a monotonic instant means nothing after one. Waits go through a `Clock`, so that a test's
/// clock (or the testbed's) moves it.
public protocol EpochClock: Sendable {
    var nowMilliseconds: Int64 { get }
    /// Returns once `nowMilliseconds` has reached `target`; throws when cancelled.
    func sleep(untilMilliseconds target: Int64) async throws
}

/// The wall time when it was made, moving along `clock` from then on: the system's time of day
/// is read once, so a step of it (NTP at boot) does not make waits jump.
public struct WallClock<C: Clock<Duration>>: EpochClock where C: Sendable {
    let clock: C
    let origin: C.Instant
    let originMilliseconds: Int64

    /// `start`: the wall time it begins at (now, unless a test says).
    public init(clock: C, start: Int64 = Int64((Date().timeIntervalSince1970 * 1000).rounded())) {
        self.clock = clock
        self.origin = clock.now
        self.originMilliseconds = start
    }

    public var nowMilliseconds: Int64 {
        originMilliseconds + origin.duration(to: clock.now).wholeMilliseconds
    }

    public func sleep(untilMilliseconds target: Int64) async throws {
        try await clock.sleep(until: origin.advanced(by: .milliseconds(target - originMilliseconds)), tolerance: nil)
    }
}
