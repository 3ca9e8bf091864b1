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
}

/// A failed load: why, and the attempts the waterfall made (nil when none was made).
public struct AdLoadFailure: Error, Sendable {
    public var error: AdLoadError
    public var info: ResponseInfo?

    public init(_ error: AdLoadError, info: ResponseInfo?) {
        self.error = error
        self.info = info
    }
}
