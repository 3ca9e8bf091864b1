import AsyncHTTPClient
import FoundationEssentials
import Mediation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import SecureSignals
import SharedTypes
import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// Reaches ad servers over HTTP(S) with one pooled client for the daemon's life: at most 3
/// redirects (within the request's origin unless it allows any), the whole exchange under its
/// request's timeout, bodies up to 4 MiB. It runs on NIO's event loops; callers only await.
struct HTTPAdFetcher: AdFetcher {
    static let maximumBytes = 4 << 20
    static let maximumRedirects = 3

    /// Never shut down: it lives as long as the process, like `HTTPClient.shared`.
    private static let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(2)),
            // A connection that cannot be made is tried again until the connect timeout or the
            // deadline: with that off, one failed connect fails every request waiting on its server.
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 16),
            decompression: .enabled(limit: .ratio(decompressionRatio))))

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
        guard let parsed = URL(string: request.url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
            parsed.host?.isEmpty == false
        else {
            throw AdServerError(.invalidURL, "not an http(s) URL: \(redactedURL(request.url))")
        }
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = request.method == .post ? .POST : .GET
        outgoing.headers.add(name: "User-Agent", value: "secure-signals")
        for header in request.headers { outgoing.headers.replaceOrAdd(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await Self.client.execute(outgoing, deadline: deadline)
            let body = try await response.body.collect(upTo: Self.maximumBytes)
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            return AdServerResponse(status: Int(response.status.code), headers: headers, body: Array(buffer: body))
        } catch let error as HTTPClientError {
            throw Self.failure(error, url: request.url, timeout: request.timeout)
        } catch let error where Self.refused(error) {
            let port = parsed.port ?? (parsed.scheme?.lowercased() == "https" ? 443 : 80)
            // An IPv6 literal in brackets, as in the URL: `[::1]:9000`.
            let host = parsed.host.map { $0.contains(":") && !$0.hasPrefix("[") ? "[\($0)]" : $0 } ?? ""
            throw AdServerError(.transport, "connection refused by \(host):\(port)")
        } catch is NIOTooManyBytesError {
            throw AdServerError(.tooLarge, "\(redactedURL(request.url)) answered more than \(Self.maximumBytes) bytes")
        } catch let error as NIOHTTPDecompression.DecompressionError {
            throw Self.failure(error, url: request.url)
        } catch {
            throw AdServerError(.transport, "\(redactedURL(request.url)): \(error)")
        }
    }

    /// Whether the server refused the connection (ECONNREFUSED), on its only address or on every one.
    private static func refused(_ error: any Error) -> Bool {
        if let error = error as? IOError { return error.errnoCode == ECONNREFUSED }
        if let error = error as? NIOConnectionError {
            return !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { refused($0.error) }
        }
        return false
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

    private static func failure(_ error: HTTPClientError, url fullURL: String, timeout: Duration) -> AdServerError {
        let url = redactedURL(fullURL)
        switch error {
        case .connectTimeout:
            return AdServerError(.timeout, "\(url): no connection within the 2 s connect timeout")
        case .deadlineExceeded, .readTimeout, .writeTimeout:
            return AdServerError(.timeout, "\(url) did not answer within \(Int(milliseconds(timeout))) ms")
        case .redirectLimitReached, .redirectCycleDetected:
            return AdServerError(.tooManyRedirects, "\(url) redirected more than \(maximumRedirects) times")
        default:
            return AdServerError(.transport, "\(url): \(error)")
        }
    }
}
