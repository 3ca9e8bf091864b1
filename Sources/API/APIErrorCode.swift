/// Every code an error answer of the socket API may carry (`{"error": {"code", "message"}}`):
/// stable strings clients switch on. The daemon answers with these only; each is documented
/// in docs/api.md (a test checks both).
public enum APIErrorCode: String, Sendable, CaseIterable, Codable {
    // The request itself.
    case invalidRequest = "invalid_request"
    case invalidConsent = "invalid_consent"
    case unsupportedMediaType = "unsupported_media_type"
    case bodyTooLarge = "body_too_large"
    case headersTooLarge = "headers_too_large"
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    // Who asks, and how much.
    case peerNotAllowed = "peer_not_allowed"
    case unknownApp = "unknown_app"
    case appNotHosted = "app_not_hosted"
    case notPermitted = "not_permitted"
    case requestTimeout = "request_timeout"
    case tooManyConnections = "too_many_connections"
    case tooManyRequests = "too_many_requests"
    // The daemon.
    case stateUnavailable = "state_unavailable"
    case internalError = "internal_error"
    case httpError = "http_error"
    // Signal adapters.
    case unknownAdapter = "unknown_adapter"
    case adapterNotReady = "adapter_not_ready"
    case resetUnsupported = "reset_unsupported"
    case resetFailed = "reset_failed"
    // Ad loads.
    case noFill = "no_fill"
    case timeout
    case networkError = "network_error"
    case frequencyCapped = "frequency_capped"
    // An ad's life.
    case unknownAd = "unknown_ad"
    case adExpired = "ad_expired"
    case adAlreadyUsed = "ad_already_used"
    case wrongFormat = "wrong_format"
    case notShown = "not_shown"
    case adAlreadyDismissed = "ad_already_dismissed"
    // Rewards.
    case unknownReward = "unknown_reward"
    case alreadyClaimed = "already_claimed"
    // The inspector.
    case unknownTrace = "unknown_trace"
    /// The loopback inspector page was asked under a name other than a loopback one.
    case hostNotLoopback = "host_not_loopback"
}
