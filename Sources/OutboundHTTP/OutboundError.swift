import NIOHTTPCompression

/// Why an exchange gave no answer, in the terms a caller words its own error in.
public enum OutboundError: Error, Sendable, Equatable {
    /// Not an absolute http or https URL with a host.
    case invalidURL
    /// No connection within the client's connect timeout.
    case connectTimeout
    /// No whole answer before the request's deadline.
    case deadlineExceeded
    /// The server refused the connection (ECONNREFUSED) on every address it has.
    case refused
    /// The body was longer than the request's `maximumBytes`.
    case tooLarge
    /// A compressed body that inflates past the client's ratio, or cannot be inflated.
    case decompression(NIOHTTPDecompression.DecompressionError)
    /// The server closed the connection before its answer ended.
    case closed
    /// The task asking was cancelled.
    case cancelled
    /// Anything else (resolution, TLS, a malformed answer), described.
    case transport(String)
}

extension OutboundError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidURL: "not an http(s) URL"
        case .connectTimeout: "no connection within the connect timeout"
        case .deadlineExceeded: "no answer before the deadline"
        case .refused: "the connection was refused"
        case .tooLarge: "the answer is over its size limit"
        case .decompression(.limit): "the compressed answer inflates past its ratio"
        case .decompression(let error): "the compressed answer cannot be inflated (\(error))"
        case .closed: "the server closed the connection before its answer ended"
        case .cancelled: "cancelled"
        case .transport(let description): description
        }
    }
}
