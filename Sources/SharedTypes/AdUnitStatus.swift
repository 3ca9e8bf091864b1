/// An ad unit as `GET /v1/ad_units` lists it: its format, its caps, and for the app asking
/// (its peer uid) how many impressions each cap has counted, whether it is capped and until
/// when, and whether a load would hand out a ready ad now.
@WireKeys
@MemberwiseInit
public struct AdUnitStatus: Sendable, Codable, Equatable {
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

    /// A frequency cap, and the asking app's impressions in its window now.
    @WireKeys
    @MemberwiseInit
    public struct Cap: Sendable, Codable, Equatable {
        public var impressions: Int
        @WireName("per_ms") public var perMilliseconds: Int64
        public var shown: Int
    }
}
