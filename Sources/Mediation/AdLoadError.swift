/// Why a load failed. Codes are stable strings.
public struct AdLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable {
        case invalidRequest = "invalid_request"
        case noFill = "no_fill"
        case timeout
        case networkError = "network_error"
        case internalError = "internal_error"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
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
