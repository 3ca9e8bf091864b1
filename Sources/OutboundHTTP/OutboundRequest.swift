import NIOHTTP1

/// One request to a server on the network: no redirect is followed (the caller decides which
/// to follow), and the answer's body is read up to `maximumBytes`.
public struct OutboundRequest: Sendable {
    public var method: HTTPMethod
    public var url: String
    /// Sent as given, after `Host` and the body's length, which the client sets (a later one of
    /// the same name replaces an earlier).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    public var maximumBytes: Int
    /// The certificate authorities (a PEM file) an https server must be signed by; nil: the system's.
    public var caFile: String?

    public init(
        method: HTTPMethod = .GET, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        maximumBytes: Int, caFile: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.maximumBytes = maximumBytes
        self.caFile = caFile
    }
}
