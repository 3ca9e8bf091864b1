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
    /// The app the load is for, as the daemon recognized it (never as the client says): its
    /// bid requests speak for it. Nil in tests of the core alone.
    public var app: AppIdentity? = nil
    /// The advertising id its bid requests carry: nil unless the app may have it
    /// (`advertising_id`), zeros while ad tracking is limited.
    public var advertisingID: AdvertisingID? = nil
}
