import Foundation
import SharedTypes

/// An ad unit as `GET /v1/ad_units` lists it: its format, its caps, and for the app asking
/// (its peer uid) how many impressions each cap has counted, whether it is capped and until
/// when, and whether a load would hand out a ready ad now.
@WireKeys
public struct AdUnitStatus: Sendable, Encodable, Equatable {
    /// A frequency cap, and the asking app's impressions in its window now.
    @WireKeys
    public struct Cap: Sendable, Encodable, Equatable {
        public var impressions: Int
        @WireName("per_ms") public var perMilliseconds: Int64
        public var shown: Int
    }

    public var id: String
    public var format: AdFormat
    public var frequencyCaps: [Cap]
    @WireName("pacing_ms") public var pacingMilliseconds: Int64?
    /// Whether a load now answers 429 `frequency_capped` to this app.
    public var capped: Bool
    /// When it is capped: until when (RFC 3339, UTC, rounded up to the second: a client that
    /// waits until then is not refused), and how long that is from now.
    public var cappedUntil: String?
    @WireName("retry_after_ms") public var retryAfterMilliseconds: Int64?
    /// Whether the unit holds a loaded, unexpired, unused ad, which a load hands out at once
    /// unless the app is capped.
    public var ready: Bool
    /// After a failed load, how long until it is tried again (its `max_retries`, on a backoff
    /// of 2 s doubling); absent when no retry waits.
    @WireName("next_retry_ms") public var nextRetryMilliseconds: Int64?

    /// `until`: wall-clock ms; `now` on the same clock.
    init(_ unit: AdUnit, times: [Int64], until: Int64?, now: Int64, ready: Bool, nextRetry: Duration?) {
        id = unit.id
        format = unit.format
        frequencyCaps = unit.capping.caps.map {
            Cap(
                impressions: $0.impressions, perMilliseconds: $0.per.wholeMilliseconds,
                shown: unit.capping.shown($0, in: times, now: now))
        }
        pacingMilliseconds = unit.capping.pacing?.wholeMilliseconds
        capped = until != nil
        cappedUntil = until.map { Date(timeIntervalSince1970: (Double($0) / 1000).rounded(.up)).formatted(.iso8601) }
        retryAfterMilliseconds = until.map { $0 - now }
        self.ready = ready
        // Rounded up: a client that waits that long finds the retry made.
        nextRetryMilliseconds = nextRetry.map { ($0 + .nanoseconds(999_999)).wholeMilliseconds }
    }
}
