import SharedTypes

/// A client's load (`POST /v1/ads`).
@MemberwiseInit
public struct AdLoadRequest: Sendable, Equatable {
    public var adUnit: String
    public var format: AdFormat
    /// The custom native formats the client renders.
    public var formatIDs: [String] = []
    public var preferences: NativeAdPreferences = NativeAdPreferences()
    public var ssv: ServerSideVerification?
    /// Load a new ad even when one is ready.
    public var force: Bool = false
    /// A test load (an app with `test`): bid requests say so (OpenRTB `test: 1`), a VAST line
    /// item asks its `test_tag`; no cap refuses or counts it, no billing goes, it is never the
    /// unit's ready ad nor joins or is joined by other loads, and it is not retried.
    public var test: Bool = false
    /// A test load's one source to try alone (`NETWORK:PARAMETER`, as the inspector names it):
    /// every line item and bidder of the unit that it names, and nothing else.
    public var lineItem: String? = nil
    /// The app the load is for, as the daemon recognized it (never as the client says): its
    /// bid requests speak for it. Nil in tests of the core alone.
    public var app: AppIdentity? = nil
    /// The advertising id its bid requests carry: nil unless the app may have it
    /// (`advertising_id`), zeros while ad tracking is limited.
    public var advertisingID: AdvertisingID? = nil
}
