import SharedTypes

/// Why a load failed.
public typealias AdLoadError = CodedError<AdLoadErrorCode>

/// Why a load failed; stable strings.
public enum AdLoadErrorCode: String, Sendable, Codable {
    case invalidRequest = "invalid_request"
    case noFill = "no_fill"
    case timeout
    case networkError = "network_error"
    case internalError = "internal_error"
    /// The unit's frequency caps or pacing allow this app no ad now.
    case frequencyCapped = "frequency_capped"
}

/// A failed load: why, the attempts the waterfall made (nil when none was made), and for a
/// capped one how long until the app may load again.
public struct AdLoadFailure: Error, Sendable {
    public var error: AdLoadError
    public var info: ResponseInfo?
    public var retryAfter: Duration?

    public init(_ error: AdLoadError, info: ResponseInfo?, retryAfter: Duration? = nil) {
        self.error = error
        self.info = info
        self.retryAfter = retryAfter
    }
}
