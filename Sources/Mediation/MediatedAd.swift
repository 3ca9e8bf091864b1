import Foundation
import SharedTypes

/// A loaded ad as clients see it (`POST /v1/ads`, `GET /v1/ads/{id}`), with only the content
/// its format has: `native`, `custom_native`, or `reward` and `video`.
@WireKeys
public struct MediatedAd: Sendable, Encodable, Equatable {
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

}

/// What a lifecycle call did: whether it counted, and where a click leads.
@WireKeys
public struct LifecycleOutcome: Sendable, Encodable, Equatable {
    /// What the client should do after a click.
    @WireKeys
    public struct ClickAction: Sendable, Encodable, Equatable {
        public enum Kind: String, Sendable, Encodable {
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

    static let recorded = LifecycleOutcome(recorded: true, reason: nil, action: nil)
    static let duplicate = LifecycleOutcome(recorded: false, reason: "duplicate", action: nil)
}

/// Why a lifecycle call was refused.
public typealias AdLifecycleError = CodedError<AdLifecycleErrorCode>

/// Why a lifecycle call was refused; stable strings.
public enum AdLifecycleErrorCode: String, Sendable {
    case unknownAd = "unknown_ad"
    case adExpired = "ad_expired"
    case adAlreadyUsed = "ad_already_used"
    case wrongFormat = "wrong_format"
    case notShown = "not_shown"
    /// A progress or playback error reported after the ad was dismissed: nothing more is recorded.
    case adAlreadyDismissed = "ad_already_dismissed"
    /// What the call earned (a reward) could not be committed to the state database.
    case stateUnavailable = "state_unavailable"
    /// The ad is another app's: an app with `inspect` may see it; only its own app acts on it.
    case notPermitted = "not_permitted"
}
