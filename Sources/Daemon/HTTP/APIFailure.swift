import API
import Hummingbird
import SharedTypes

/// A failure the socket API answers with: a stable code, a message for people, and the HTTP
/// status it is answered with. Every error a route may throw conforms (the domain errors in
/// `ErrorAnswers.swift`, the daemon's own as `APIError`); each is Hummingbird's
/// `HTTPResponseError`, answered as `{"error": {"code", "message"}}` and whatever
/// `encodeDetails` adds beside it (`ErrorMiddleware` answers the errors that are not).
protocol APIFailure: HTTPResponseError {
    /// The code clients switch on, such as `unknown_ad`; stable across versions.
    var errorCode: APIErrorCode { get }
    var message: String { get }
    /// Headers the answer carries: `Retry-After`, or `Connection: close` when the connection
    /// cannot go on (the daemon closes it after the answer).
    var headers: HTTPFields { get }
    /// Members the answer carries beside `error` (a failed load's `response_info`).
    func encodeDetails(to container: inout KeyedEncodingContainer<AnyCodingKey>) throws
}

extension APIFailure {
    /// None by default.
    public var headers: HTTPFields { [:] }

    func encodeDetails(to container: inout KeyedEncodingContainer<AnyCodingKey>) throws {}

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try response()
    }

    /// The answer: the status, the headers, and the error as JSON.
    func response() throws -> Response {
        var response = try WireResponseEncoder.response(ErrorAnswer(failure: self), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    /// The answer's body alone, for the connection's own answers below the router.
    func body() throws -> [UInt8] {
        try WireResponseEncoder.bytes(ErrorAnswer(failure: self))
    }
}

/// The body of every error answer.
private struct ErrorAnswer: Encodable {
    struct Detail: Encodable {
        var code: APIErrorCode
        var message: String
    }

    let failure: any APIFailure

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        try container.encode(Detail(code: failure.errorCode, message: failure.message), forKey: AnyCodingKey("error"))
        try failure.encodeDetails(to: &container)
    }
}
