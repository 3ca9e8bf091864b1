import Hummingbird
import SharedTypes

/// A failure the socket API answers with: a stable code, a message for people, and the HTTP
/// status it is answered with. Every error a route may throw conforms (the domain errors in
/// `ErrorAnswers.swift`, the daemon's own as `APIError`); `ErrorMiddleware` turns each into
/// `{"error": {"code", "message"}}` and whatever `encodeDetails` adds beside it.
protocol APIFailure: Error {
    /// The code clients switch on, such as `unknown_ad`; stable across versions.
    var errorCode: String { get }
    var message: String { get }
    var status: HTTPResponse.Status { get }
    /// Headers the answer carries: `Retry-After`, or `Connection: close` when the connection
    /// cannot go on (the daemon closes it after the answer).
    var headers: HTTPFields { get }
    /// Members the answer carries beside `error` (a failed load's `response_info`).
    func encodeDetails(to container: inout KeyedEncodingContainer<AnyCodingKey>) throws
}

extension APIFailure {
    var headers: HTTPFields { [:] }

    func encodeDetails(to container: inout KeyedEncodingContainer<AnyCodingKey>) throws {}

    /// The answer: the status, the headers, and the error as JSON.
    func response() throws -> Response {
        var response = try JSONResponse.make(ErrorAnswer(failure: self), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    /// The answer's body alone, for the connection's own answers below the router.
    func body() throws -> [UInt8] {
        try JSONResponse.bytes(ErrorAnswer(failure: self))
    }
}

/// The body of every error answer.
private struct ErrorAnswer: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
    }

    let failure: any APIFailure

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        try container.encode(Detail(code: failure.errorCode, message: failure.message), forKey: AnyCodingKey("error"))
        try failure.encodeDetails(to: &container)
    }
}
