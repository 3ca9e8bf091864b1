import SharedTypes

/// How the daemon reaches ad servers: bid requests, ad tags, tracker pings and image
/// downloads. The daemon gives its pooled HTTP client; nothing in Mediation speaks HTTP itself.
public protocol AdFetcher: Sendable {
    /// Sends one request and returns the answer, whatever its status; throws only when there
    /// is no answer (bad URL, transport error, timeout, a body over the cap, too many redirects).
    func send(_ request: AdServerRequest) async throws(AdServerError) -> AdServerResponse
}

extension AdFetcher {
    /// The body at `url`; throws on a transport error or a status other than 2xx. Redirects
    /// are followed within `url`'s origin unless `redirects` says otherwise.
    public func fetch(
        _ url: String, timeout: Duration = .seconds(5), redirects: AdServerRequest.Redirects = .sameOrigin
    ) async throws(AdServerError) -> [UInt8] {
        let response = try await send(AdServerRequest(url: url, timeout: timeout, redirects: redirects))
        guard (200..<300).contains(response.status) else {
            throw AdServerError(
                .status, "\(redactedURL(url)) answered HTTP \(response.status)", status: response.status)
        }
        return response.body
    }
}

/// One request to an ad server.
@MemberwiseInit
public struct AdServerRequest: Sendable {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    /// Which redirects are followed (at most 3).
    public enum Redirects: Sendable {
        /// Only to the request's scheme, host and port: a bid request, an ad tag, anything that
        /// must reach only the server the configuration names. Another origin ends the
        /// exchange with `redirectRefused`.
        case sameOrigin
        /// To any http(s) URL: tracker pings and images, which are redirected across hosts.
        case anyOrigin
    }

    public var method: Method = .get
    public var url: String
    public var headers: [(name: String, value: String)] = []
    public var body: [UInt8]?
    /// The whole exchange, connection to last byte.
    public var timeout: Duration = .seconds(5)
    public var redirects: Redirects = .sameOrigin
}

/// An ad server's answer.
@MemberwiseInit
public struct AdServerResponse: Sendable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String] = [:]
    public var body: [UInt8] = []
}

/// Why an ad server gave no usable answer. Its message names the server by `redactedURL`.
public struct AdServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case invalidURL = "invalid_url"
        case timeout
        case transport
        case tooLarge = "too_large"
        case tooManyRedirects = "too_many_redirects"
        /// A redirect to another origin where only the request's own is followed.
        case redirectRefused = "redirect_refused"
        /// A status other than 2xx where only 2xx will do.
        case status
    }

    public var kind: Kind
    public var message: String
    /// The HTTP status, for `status`.
    public var status: Int?

    public init(_ kind: Kind, _ message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
    }

    public var description: String { message }
}
