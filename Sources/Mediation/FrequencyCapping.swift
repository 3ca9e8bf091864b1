import SharedTypes

/// How often one app (one peer uid) may be shown a unit's ads: at most `impressions` per
/// window for each cap, and at least `pacing` between two. The strictest rule wins.
public struct FrequencyCapping: Sendable, Equatable {
    /// At most `impressions` in any window of `per`.
    @MemberwiseInit
    public struct Cap: Sendable, Equatable {
        public var impressions: Int
        public var per: Duration
    }

    public var caps: [Cap]
    /// The least time between two impressions; nil: none.
    public var pacing: Duration?

    public init(caps: [Cap] = [], pacing: Duration? = nil) {
        self.caps = caps
        self.pacing = pacing
    }

    /// No cap and no pacing: the unit's impressions are not counted.
    public var isEmpty: Bool { caps.isEmpty && pacing == nil }

    /// How long an impression can still matter: the longest window, or the pacing if longer.
    public var horizon: Duration { max(caps.map(\.per).max() ?? .zero, pacing ?? .zero) }

    /// The oldest time (wall-clock ms) an impression can still count at `now`: one `horizon`
    /// old or older no longer does (a window is open at its start).
    public func earliestCounted(at now: Int64) -> Int64 {
        now - horizon.wholeMilliseconds + 1
    }

    /// Until when (wall-clock ms) an app whose impressions of the unit were at `times` (oldest
    /// first, wall-clock ms) may not load one at `now`; nil when it may.
    public func cappedUntil(after times: [Int64], now: Int64) -> Int64? {
        var until: Int64?
        for cap in caps {
            let window = Self.window(of: cap, in: times, now: now)
            guard cap.impressions > 0, window.count >= cap.impressions else { continue }
            // The window falls below the cap when its oldest impression that still matters leaves it.
            let leaving = window[window.index(window.endIndex, offsetBy: -cap.impressions)]
            until = max(until ?? .min, leaving + cap.per.wholeMilliseconds)
        }
        if let pacing, let last = times.last, last + pacing.wholeMilliseconds > now {
            until = max(until ?? .min, last + pacing.wholeMilliseconds)
        }
        return until
    }

    /// How many of `times` fall in `cap`'s window at `now`.
    public func shown(_ cap: Cap, in times: [Int64], now: Int64) -> Int {
        Self.window(of: cap, in: times, now: now).count
    }

    /// The impressions of `times` (oldest first) in `cap`'s window at `now`: those less than
    /// its length ago.
    private static func window(of cap: Cap, in times: [Int64], now: Int64) -> ArraySlice<Int64> {
        times.drop { $0 <= now - cap.per.wholeMilliseconds }
    }
}
