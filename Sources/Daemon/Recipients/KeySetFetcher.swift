import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOSSL
import SecureSignals
import SharedTypes
import Timing

/// What a key URL answered: its status, its headers (names lowercased) and its body.
struct KeySetAnswer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
}

/// Fetches a recipient's key URL; the refresher's seam.
protocol KeySetFetching: Sendable {
    func fetch(_ keyURL: RecipientKeys.KeyURL) async throws(KeySetResponse.Refusal) -> KeySetAnswer
}

/// Fetches key URLs over HTTP(S) with one pooled client for the daemon's life: the system's
/// certificate authorities unless the recipient names its own `ca_file`, 5 s for the whole
/// exchange, at most 64 KiB read, and redirects followed (up to 3) only on the same scheme,
/// host and port, so that a key set never comes from a server the configuration does not name.
struct HTTPKeySetFetcher: KeySetFetching {
    static let maximumRedirects = 3
    /// For the whole fetch: every redirect, and the body read to its end.
    let timeout: Duration

    init(timeout: Duration = .seconds(5)) {
        self.timeout = timeout
    }

    /// Never shut down: it lives as long as the process, like `HTTPClient.shared`.
    private static let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(2), read: .seconds(5)),
            connectionPool: .init(idleTimeout: .seconds(30)), decompression: .disabled))

    func fetch(_ keyURL: RecipientKeys.KeyURL) async throws(KeySetResponse.Refusal) -> KeySetAnswer {
        // The client's deadline ends with the answer's head; this one covers the body too.
        switch await withTimeout(timeout, operation: { try await Self.follow(keyURL, timeout: timeout) }) {
        case .value(let answer): return answer
        case .failure(let refusal as KeySetResponse.Refusal): throw refusal
        case .failure(let error): throw KeySetResponse.Refusal(.transport, "could not be reached: \(error)")
        case .timedOut: throw KeySetResponse.Refusal(.timeout, "did not answer within \(timeout)")
        }
    }

    /// The exchanges of one fetch, following same-origin redirects.
    private static func follow(_ keyURL: RecipientKeys.KeyURL, timeout: Duration)
        async throws(KeySetResponse.Refusal) -> KeySetAnswer
    {
        let tls = tls(keyURL.caFile)
        let deadline = NIODeadline.now() + .nanoseconds(timeout.nanoseconds)
        var url = keyURL.url
        for _ in 0...Self.maximumRedirects {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "User-Agent", value: "secure-signals")
            request.headers.add(name: "Accept", value: KeySetResponse.contentType)
            request.tlsConfiguration = tls
            let answer = try await exchange(request, deadline: deadline, timeout: timeout)
            guard [301, 302, 303, 307, 308].contains(answer.status), let location = answer.headers["location"] else {
                return answer
            }
            url = try sameOrigin(location, from: url)
        }
        throw KeySetResponse.Refusal(.redirect, "redirected more than \(maximumRedirects) times")
    }

    private static func exchange(_ request: HTTPClientRequest, deadline: NIODeadline, timeout: Duration)
        async throws(KeySetResponse.Refusal) -> KeySetAnswer
    {
        do {
            let response = try await client.execute(request, deadline: deadline)
            let body = try await response.body.collect(upTo: KeySetResponse.maximumBytes)
            var headers: [String: String] = [:]
            // A field given on several lines is one list (RFC 9110 §5.3).
            for header in response.headers {
                let name = header.name.lowercased()
                headers[name] = headers[name].map { "\($0), \(header.value)" } ?? header.value
            }
            return KeySetAnswer(status: Int(response.status.code), headers: headers, body: Array(buffer: body))
        } catch let error as HTTPClientError
            where [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error)
        {
            throw KeySetResponse.Refusal(.timeout, "did not answer within \(timeout)")
        } catch is NIOTooManyBytesError {
            throw KeySetResponse.Refusal(.tooLarge, "answered more than \(KeySetResponse.maximumBytes) bytes")
        } catch {
            throw KeySetResponse.Refusal(.transport, "could not be reached: \(error)")
        }
    }

    /// `location` resolved against `current`, if it keeps the scheme, host and port.
    private static func sameOrigin(_ location: String, from current: String) throws(KeySetResponse.Refusal) -> String {
        guard let next = SameOrigin.resolve(location, against: current), SameOrigin.holds(next, from: current) else {
            throw KeySetResponse.Refusal(
                .redirect, "redirected to another server (\(SameOrigin.redacted(location)))")
        }
        return next.absoluteString
    }

    /// The system's trust roots, or only those of `caFile`.
    private static func tls(_ caFile: String?) -> TLSConfiguration? {
        guard let caFile else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(caFile)
        return tls
    }
}
