import SharedTypes

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
