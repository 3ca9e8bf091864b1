import API
import Consent
import Hummingbird
import Mediation
import NIOHTTP1
import SecureSignals
import SharedTypes

// Each domain error as the socket API answers it: its code and its status. The one place
// where a failure of the cores becomes HTTP.

/// The codes of a domain error, each with the API's code and the status it is answered with.
public protocol AnsweredCode {
    var answer: APIErrorCode { get }
    var status: HTTPResponse.Status { get }
}

extension CodedError: APIFailure, HTTPResponseError, ResponseGenerator where Codes: AnsweredCode {
    var errorCode: APIErrorCode { code.answer }
    public var status: HTTPResponse.Status { code.status }
}

extension AdLoadErrorCode: AnsweredCode {
    public var answer: APIErrorCode {
        switch self {
        case .invalidRequest: .invalidRequest
        case .noFill: .noFill
        case .timeout: .timeout
        case .networkError: .networkError
        case .internalError: .internalError
        case .frequencyCapped: .frequencyCapped
        }
    }

    public var status: HTTPResponse.Status {
        switch self {
        case .invalidRequest: .badRequest
        case .noFill: .notFound
        case .timeout: .gatewayTimeout
        case .networkError: .badGateway
        case .internalError: .internalServerError
        case .frequencyCapped: .tooManyRequests
        }
    }
}

/// A failed load answers its error, and the waterfall's attempts when it made any.
extension AdLoadFailure: APIFailure {
    var errorCode: APIErrorCode { error.errorCode }
    var message: String { error.message }
    public var status: HTTPResponse.Status { error.status }

    /// A capped load's `Retry-After`, in whole seconds rounded up.
    public var headers: HTTPFields {
        guard let retryAfter else { return [:] }
        return [.retryAfter: "\((retryAfter.wholeMilliseconds + 999) / 1000)"]
    }

    func encodeDetails(to container: inout KeyedEncodingContainer<AnyCodingKey>) throws {
        try container.encodeIfPresent(info, forKey: AnyCodingKey("response_info"))
        try container.encodeIfPresent(retryAfter?.wholeMilliseconds, forKey: AnyCodingKey("retry_after_ms"))
    }
}

/// A consent string that cannot be decoded: the message names the string, the section and what
/// was wrong, never the string itself.
extension ConsentStringError: APIFailure {
    var errorCode: APIErrorCode { .invalidConsent }
    var message: String { description }
    public var status: HTTPResponse.Status { .badRequest }
}

/// A privacy change not made: a string that cannot be decoded (400 `invalid_consent`), or one
/// the state database did not take (503 `state_unavailable`, the cause in the log).
extension PrivacyKeeper.ChangeFailure: APIFailure {
    var errorCode: APIErrorCode {
        switch self {
        case .invalid: .invalidConsent
        case .notKept: .stateUnavailable
        }
    }

    var message: String {
        switch self {
        case .invalid(let error): error.description
        case .notKept:
            "the privacy state could not be kept in the state database, and the one in force stays; see the daemon's log"
        }
    }

    public var status: HTTPResponse.Status {
        switch self {
        case .invalid: .badRequest
        case .notKept: .serviceUnavailable
        }
    }
}

extension AdLifecycleErrorCode: AnsweredCode {
    public var answer: APIErrorCode {
        switch self {
        case .unknownAd: .unknownAd
        case .adExpired: .adExpired
        case .adAlreadyUsed: .adAlreadyUsed
        case .notShown: .notShown
        case .wrongFormat: .wrongFormat
        case .adAlreadyDismissed: .adAlreadyDismissed
        case .stateUnavailable: .stateUnavailable
        case .notPermitted: .notPermitted
        }
    }

    public var status: HTTPResponse.Status {
        switch self {
        case .notPermitted: .forbidden
        case .unknownAd: .notFound
        case .adExpired: .gone
        case .adAlreadyUsed, .notShown, .wrongFormat, .adAlreadyDismissed: .conflict
        case .stateUnavailable: .serviceUnavailable
        }
    }
}

extension ResetFailure: APIFailure {
    var errorCode: APIErrorCode {
        switch self {
        case .unknownAdapter: .unknownAdapter
        case .unsupported: .resetUnsupported
        case .notReady: .adapterNotReady
        case .failed: .resetFailed
        }
    }

    var message: String {
        switch self {
        case .unknownAdapter(let message), .unsupported(let message), .notReady(let message), .failed(let message):
            message
        }
    }

    public var status: HTTPResponse.Status {
        switch self {
        case .unknownAdapter: .notFound
        case .unsupported, .notReady: .conflict
        case .failed: .internalServerError
        }
    }
}

/// A request body that does not decode: the message names the field.
extension StrictJSON.Failure: APIFailure {
    var errorCode: APIErrorCode { .invalidRequest }
    var message: String { description }
    public var status: HTTPResponse.Status { .badRequest }
}

/// A request the HTTP parser could not read: the connection cannot go on after the answer.
struct MalformedRequest: APIFailure {
    let error: HTTPParserError

    var errorCode: APIErrorCode { error == .headerOverflow ? .headersTooLarge : .invalidRequest }
    var status: HTTPResponse.Status { error == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest }
    var headers: HTTPFields { [.connection: "close"] }

    var message: String {
        switch error {
        case .headerOverflow: return "the request's headers are over the limit (80 KiB, 1000 fields)"
        case .invalidChunkSize: return "malformed HTTP request: a chunk of the chunked body has an invalid size"
        case .invalidContentLength, .unexpectedContentLength:
            return "malformed HTTP request: an invalid or conflicting Content-Length"
        case .invalidMethod: return "malformed HTTP request: not a method this daemon knows"
        case .invalidVersion: return "malformed HTTP request: not HTTP/1.0 or HTTP/1.1"
        case .invalidURL: return "malformed HTTP request: an invalid request target"
        case .invalidHeaderToken: return "malformed HTTP request: an invalid header"
        default: return "malformed HTTP request (\(error.debugDescription))"
        }
    }
}
