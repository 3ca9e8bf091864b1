/// How the daemon reaches ad servers: tracker pings and image downloads. The daemon gives an
/// HTTP client; tests give real local servers through the same.
public protocol AdFetcher: Sendable {
    /// The body at `url`; throws on a transport error or a status other than 2xx.
    func fetch(_ url: String) async throws -> [UInt8]
}
