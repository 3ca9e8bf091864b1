import FoundationEssentials
import Mediation
import NIOCore
import NIOHTTPCompression
import OutboundHTTP
import SecureSignals
import SharedTypes
import Timing

/// Reaches ad servers over HTTP(S) with one pooled client for the daemon's life: at most 3
/// redirects (within the request's origin unless it allows any), the whole exchange under its
/// request's timeout, bodies up to 4 MiB. It runs on NIO's event loops; callers only await.
struct HTTPAdFetcher: AdFetcher {
    static let maximumBytes = 4 << 20
    static let maximumRedirects = 3

    /// Never shut down: it lives as long as the process. A connection that cannot be made fails
    /// its request alone; the next one tries again.
    private static let client = OutboundClient(
        configuration: .init(
            connectTimeout: .seconds(2), idleTimeout: .seconds(60), maximumPerOrigin: 16,
            decompressionRatio: decompressionRatio))

    /// How many times its compressed size a body may inflate to.
    static let decompressionRatio = 20

    func send(_ request: AdServerRequest) async throws(AdServerError) -> AdServerResponse {
        let deadline = NIODeadline.now() + .nanoseconds(request.timeout.nanoseconds)
        var current = request
        var visited: Set<String> = []
        for _ in 0...Self.maximumRedirects {
            let response = try await exchange(current, deadline: deadline)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"]
            else { return response }
            visited.insert(current.url)
            current = try Self.redirect(current, to: location, status: response.status, from: request)
            if visited.contains(current.url) {
                throw AdServerError(.tooManyRedirects, "\(redactedURL(request.url)) redirects in a loop")
            }
        }
        throw AdServerError(
            .tooManyRedirects, "\(redactedURL(request.url)) redirected more than \(Self.maximumRedirects) times")
    }

    /// The request a redirect asks for: 307 and 308 keep the method and body, the others
    /// become a GET without a body (RFC 9110 §15.4). Another origin is refused unless the
    /// request allows any.
    private static func redirect(
        _ current: AdServerRequest, to location: String, status: Int, from original: AdServerRequest
    ) throws(AdServerError) -> AdServerRequest {
        guard let next = SameOrigin.resolve(location, against: current.url),
            ["http", "https"].contains(next.scheme?.lowercased() ?? "")
        else {
            throw AdServerError(
                .invalidURL, "\(redactedURL(original.url)) redirected to \(SameOrigin.redacted(location))")
        }
        if current.redirects == .sameOrigin, !SameOrigin.holds(next, from: current.url) {
            throw AdServerError(
                .redirectRefused,
                "\(redactedURL(original.url)) redirected to another server (\(SameOrigin.redacted(location))), "
                    + "which is not followed")
        }
        var redirected = current
        redirected.url = next.absoluteString
        if ![307, 308].contains(status) {
            redirected.method = .get
            redirected.body = nil
        }
        return redirected
    }

    /// One exchange, no redirect followed, before `deadline`.
    private func exchange(_ request: AdServerRequest, deadline: NIODeadline) async throws(AdServerError)
        -> AdServerResponse
    {
        var outgoing = OutboundRequest(
            method: request.method == .post ? .POST : .GET, url: request.url,
            headers: [("User-Agent", "secure-signals")], body: request.body, maximumBytes: Self.maximumBytes)
        outgoing.headers += request.headers.map { ($0.name, $0.value) }
        do {
            let response = try await Self.client.execute(outgoing, deadline: deadline)
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            return AdServerResponse(status: response.status, headers: headers, body: response.body)
        } catch {
            throw Self.failure(error, url: request.url, timeout: request.timeout)
        }
    }

    /// A compressed body that could not be read, said as such (NIO says only `limit`).
    private static func failure(_ error: NIOHTTPDecompression.DecompressionError, url: String) -> AdServerError {
        switch error {
        case .limit:
            return AdServerError(
                .tooLarge,
                "\(redactedURL(url)) answered a compressed body that inflates to more than \(decompressionRatio) times "
                    + "its size (a decompression bomb): refused")
        case .inflationError(let code), .initializationError(let code):
            return AdServerError(
                .transport,
                "\(redactedURL(url)) answered a compressed body that cannot be inflated (zlib error \(code))")
        }
    }

    private static func failure(_ error: OutboundError, url fullURL: String, timeout: Duration) -> AdServerError {
        let url = redactedURL(fullURL)
        return switch error {
        case .invalidURL: AdServerError(.invalidURL, "not an http(s) URL: \(url)")
        case .connectTimeout: AdServerError(.timeout, "\(url): no connection within the 2 s connect timeout")
        case .deadlineExceeded: AdServerError(.timeout, "\(url) did not answer within \(Int(milliseconds(timeout))) ms")
        case .refused: AdServerError(.transport, "connection refused by \(address(of: fullURL))")
        case .tooLarge: AdServerError(.tooLarge, "\(url) answered more than \(maximumBytes) bytes")
        case .decompression(let error): failure(error, url: fullURL)
        case .closed: AdServerError(.transport, "\(url) closed the connection before its answer ended")
        case .cancelled: AdServerError(.timeout, "\(url): the load it was for ended first")
        case .transport(let description): AdServerError(.transport, "\(url): \(description)")
        }
    }

    /// The host and port `url` is reached at, an IPv6 literal in brackets as in a URL: `[::1]:9000`.
    private static func address(of fullURL: String) -> String {
        let url = URL(string: fullURL)
        let port = url?.port ?? (url?.scheme?.lowercased() == "https" ? 443 : 80)
        let host = url?.host.map { $0.contains(":") && !$0.hasPrefix("[") ? "[\($0)]" : $0 } ?? ""
        return "\(host):\(port)"
    }
}
