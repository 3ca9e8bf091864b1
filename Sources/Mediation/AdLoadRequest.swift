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
}
