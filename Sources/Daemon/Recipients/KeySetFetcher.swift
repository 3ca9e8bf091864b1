import FoundationEssentials
import NIOCore
import OutboundHTTP
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

    /// Never shut down: it lives as long as the process.
    private static let client = OutboundClient(
        configuration: .init(connectTimeout: .seconds(2), idleTimeout: .seconds(30)))

    /// The exchanges of one fetch, following same-origin redirects, all before one deadline:
    /// every redirect and every body read to its end.
    func fetch(_ keyURL: RecipientKeys.KeyURL) async throws(KeySetResponse.Refusal) -> KeySetAnswer {
        let deadline = NIODeadline.now() + .nanoseconds(timeout.nanoseconds)
        var url = keyURL.url
        for _ in 0...Self.maximumRedirects {
            let request = OutboundRequest(
                url: url, headers: [("User-Agent", "secure-signals"), ("Accept", KeySetResponse.contentType)],
                maximumBytes: KeySetResponse.maximumBytes, caFile: keyURL.caFile)
            let answer = try await Self.exchange(request, timeout: timeout, deadline: deadline)
            guard [301, 302, 303, 307, 308].contains(answer.status), let location = answer.headers["location"] else {
                return answer
            }
            url = try Self.sameOrigin(location, from: url)
        }
        throw KeySetResponse.Refusal(.redirect, "redirected more than \(Self.maximumRedirects) times")
    }

    private static func exchange(_ request: OutboundRequest, timeout: Duration, deadline: NIODeadline)
        async throws(KeySetResponse.Refusal) -> KeySetAnswer
    {
        do {
            let response = try await client.execute(request, deadline: deadline)
            var headers: [String: String] = [:]
            // A field given on several lines is one list (RFC 9110 §5.3).
            for header in response.headers {
                let name = header.name.lowercased()
                headers[name] = headers[name].map { "\($0), \(header.value)" } ?? header.value
            }
            return KeySetAnswer(status: response.status, headers: headers, body: response.body)
        } catch .deadlineExceeded, .connectTimeout {
            throw KeySetResponse.Refusal(.timeout, "did not answer within \(timeout)")
        } catch .tooLarge {
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
}
