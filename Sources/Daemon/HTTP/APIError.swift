import Hummingbird

/// A failure the daemon itself answers with (a refused peer, a body it will not read, a route
/// it does not have), as opposed to one a domain error carries.
struct APIError: APIFailure, CustomStringConvertible {
    var status: HTTPResponse.Status
    var errorCode: String
    var message: String

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.errorCode = code
        self.message = message
    }

    var description: String { "\(status.code) \(errorCode): \(message)" }
}
