import FoundationEssentials
import Hummingbird
import SharedTypes

extension DaemonRequestContext {
    /// A path parameter as the client meant it: the router hands it over as sent, and a client
    /// percent-encodes each one as a single segment (`Endpoint.path`), so it is decoded here.
    func pathParameter(_ name: String) throws -> String {
        let raw = try parameters.require(name)
        guard let decoded = PercentEncoding.decoded(raw) else {
            throw APIError(.badRequest, .invalidRequest, "\(name): \"\(raw)\" is not percent-encoded text")
        }
        return decoded
    }
}
