/// The impressions that frequency caps count, in memory, per unit and app (app id): what
/// the store decides by; the `ImpressionLog` keeps them across restarts.
struct ImpressionHistory: Sendable {
    private struct App: Hashable {
        var unit: String
        var app: String?
    }

    /// Each app's impressions of each unit, oldest first (wall-clock ms).
    private var times: [App: [Int64]] = [:]

    /// `impressions` as counted at `now`: one stored later than `now` (the wall clock was ahead
    /// when it was, or is behind now) counts as made now, so no cap lasts longer than its window.
    init(_ impressions: [CappedImpression] = [], now: Int64 = .max) {
        for impression in impressions.sorted(by: { $0.at < $1.at }) {
            times[App(unit: impression.adUnit, app: impression.app), default: []].append(min(impression.at, now))
        }
    }

    /// Adds `impression`, forgetting that app's impressions of the unit before `horizon`.
    mutating func add(_ impression: CappedImpression, forgettingBefore horizon: Int64) {
        let app = App(unit: impression.adUnit, app: impression.app)
        var kept = times[app, default: []].filter { $0 >= horizon }
        // Kept in order even if the wall clock stepped back.
        let index = kept.lastIndex { $0 <= impression.at }.map { $0 + 1 } ?? 0
        kept.insert(impression.at, at: index)
        times[app] = kept
    }

    /// Adds those of `counted` it does not hold: impressions counted while it was read from
    /// the log as at `readAt`, which the read may or may not have seen (one it saw is held
    /// once, not twice; the read held it as at `readAt` at the latest), each under its unit's
    /// caps in `caps` (one of a unit no longer capped is not counted).
    mutating func takeUp(_ counted: [CappedImpression], caps: [String: AdUnit], readAt: Int64) {
        /// How many of `counted` came to each time so far.
        var seen: [App: [Int64: Int]] = [:]
        for impression in counted {
            guard let capping = caps[impression.adUnit]?.capping, !capping.isEmpty else { continue }
            let app = App(unit: impression.adUnit, app: impression.app)
            let asRead = min(impression.at, readAt)
            let held = times[app, default: []].filter { $0 == asRead }.count
            let matched = seen[app, default: [:]][asRead, default: 0]
            seen[app, default: [:]][asRead, default: 0] += 1
            if matched >= held {
                add(impression, forgettingBefore: capping.earliestCounted(at: impression.at))
            }
        }
    }

    /// App `app`'s impressions of `unit`, oldest first.
    func times(unit: String, app: String?) -> [Int64] {
        times[App(unit: unit, app: app)] ?? []
    }
}
