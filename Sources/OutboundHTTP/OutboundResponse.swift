/// A server's answer, its body read to the end.
public struct OutboundResponse: Sendable {
    public var status: Int
    /// In the order the server sent them, names as it spelled them.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
