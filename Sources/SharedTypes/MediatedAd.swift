/// A loaded ad as clients see it (`POST /v1/ads`, `GET /v1/ads/{id}`), with only the content
/// its format has: `native`, `custom_native`, or `reward` and `video`.
@WireKeys
@MemberwiseInit
public struct MediatedAd: Sendable, Codable, Equatable {
    public var adID: String
    public var adUnit: String
    public var format: AdFormat
    public var responseInfo: ResponseInfo
    /// RFC 3339, UTC.
    public var expiresAt: String
    public var native: NativeAd?
    public var customNative: CustomNativeAd?
    public var reward: Reward?
    /// The video of a rewarded video ad.
    public var video: VideoCreative?
    /// True for a test load's ad, which an app labels as a test ad (absent otherwise).
    public var test: Bool? = nil
}

/// What a lifecycle call did: whether it counted, and where a click leads.
@WireKeys
@MemberwiseInit
public struct LifecycleOutcome: Sendable, Codable, Equatable {
    /// What the client should do after a click.
    @WireKeys
    @MemberwiseInit
    public struct ClickAction: Sendable, Codable, Equatable {
        public enum Kind: String, Sendable, Codable {
            /// The client handles the click itself, as it asked.
            case custom
            case deepLink = "deep_link"
            case url
        }

        public var type: Kind
        public var url: String?
        public var asset: String?
    }

    public var recorded: Bool
    /// Why it was not recorded (`duplicate`).
    public var reason: String?
    public var action: ClickAction?

    public static let recorded = LifecycleOutcome(recorded: true, reason: nil, action: nil)
    public static let duplicate = LifecycleOutcome(recorded: false, reason: "duplicate", action: nil)
}
