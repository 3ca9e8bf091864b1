import SharedTypes

extension DaemonConfiguration {
    /// `metrics`: where else `/metrics` may be scraped.
    @Settings
    struct MetricsSettings: Codable, Sendable {
        /// `HOST:PORT` of a loopback TCP listener that serves `/metrics` only; nil: none.
        @Nullable var listen: String?

    }
}

/// A loopback address and port that `/metrics` is served on besides the socket.
public struct MetricsListener: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// `inspect.page`: whether it also serves the inspector's page and the traces it reads.
    public var servesInspector = false
}

extension ConfigurationResolver {
    /// `metrics.listen`: `127.0.0.1:PORT`, `[::1]:PORT` or `localhost:PORT`; anything else is
    /// refused, for the socket's access control does not reach a TCP port.
    func metricsListener() throws -> MetricsListener? {
        guard let listen = settings.metrics.listen else {
            if settings.inspect.page {
                throw fail("inspect.page", "needs metrics.listen: the page is served on that loopback listener")
            }
            return nil
        }
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
            (1...65_535).contains(port)
        else {
            throw fail("metrics.listen", "must be HOST:PORT, such as \"127.0.0.1:9464\", not \"\(listen)\"")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard ["127.0.0.1", "::1", "localhost"].contains(host) else {
            throw fail(
                "metrics.listen",
                "must be a loopback address (127.0.0.1, [::1] or localhost), not \"\(host)\": nothing but the socket's peers may reach the daemon"
            )
        }
        return MetricsListener(host: host, port: port, servesInspector: settings.inspect.page)
    }
}
