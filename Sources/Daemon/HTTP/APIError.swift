import API
import Hummingbird

/// A failure the daemon itself answers with (a refused peer, a body it will not read, a route
/// it does not have), as opposed to one a domain error carries.
struct APIError: APIFailure, CustomStringConvertible {
    var status: HTTPResponse.Status
    var errorCode: APIErrorCode
    var message: String
    var headers: HTTPFields

    init(_ status: HTTPResponse.Status, _ code: APIErrorCode, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.errorCode = code
        self.message = message
        self.headers = headers
    }

    var description: String { "\(status.code) \(errorCode.rawValue): \(message)" }
}

extension APIError {
    /// 413: the rest of the body is not read, so the connection cannot carry another request.
    static let bodyTooLarge = APIError(
        .contentTooLarge, .bodyTooLarge, "the request body is over \(StrictRequestDecoder.maximumBytes / 1024) KiB",
        headers: [.connection: "close"])
}
