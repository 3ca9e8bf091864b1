import FoundationEssentials
import SharedTypes

extension AdUnitStatus {
    /// Unit `unit` as the app whose impressions are `times` sees it. `until`: wall-clock ms;
    /// `now` on the same clock.
    init(_ unit: AdUnit, times: [Int64], until: Int64?, now: Int64, ready: Bool, nextRetry: Duration?) {
        self.init(
            id: unit.id, format: unit.format,
            frequencyCaps: unit.capping.caps.map {
                Cap(
                    impressions: $0.impressions, perMilliseconds: $0.per.wholeMilliseconds,
                    shown: unit.capping.shown($0, in: times, now: now))
            },
            pacingMilliseconds: unit.capping.pacing?.wholeMilliseconds, capped: until != nil,
            cappedUntil: until.map {
                Date(timeIntervalSince1970: (Double($0) / 1000).rounded(.up)).formatted(.iso8601)
            },
            retryAfterMilliseconds: until.map { $0 - now }, ready: ready,
            // Rounded up: a client that waits that long finds the retry made.
            nextRetryMilliseconds: nextRetry.map { ($0 + .nanoseconds(999_999)).wholeMilliseconds })
    }
}
