import SharedTypes

/// A client's load (`POST /v1/ads`).
public struct AdLoadRequest: Sendable, Equatable {
    public var adUnit: String
    public var format: AdFormat
    /// The custom native formats the client renders.
    public var formatIDs: [String]
    public var preferences: NativeAdPreferences
    public var ssv: ServerSideVerification?
    /// Load a new ad even when one is ready.
    public var force: Bool

    public init(
        adUnit: String, format: AdFormat, formatIDs: [String] = [],
        preferences: NativeAdPreferences = NativeAdPreferences(),
        ssv: ServerSideVerification? = nil, force: Bool = false
    ) {
        self.adUnit = adUnit
        self.format = format
        self.formatIDs = formatIDs
        self.preferences = preferences
        self.ssv = ssv
        self.force = force
    }
}
