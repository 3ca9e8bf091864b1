import FoundationEssentials

/// Where a request goes and what it asks there: the origin a connection is made to (and kept
/// for), the request target and the `Host` header.
struct Destination: Sendable {
    /// What one pooled connection serves: a scheme, a host, a port, and the trust it was made with.
    struct Origin: Hashable, Sendable {
        var secure: Bool
        var host: String
        var port: Int
        var caFile: String?
    }

    var origin: Origin
    /// The path and query as the URL spells them, percent-encoding kept: `/bid?x=1`.
    var target: String
    var hostHeader: String

    /// nil unless `url` is an absolute http or https URL with a host and a valid port.
    init?(_ url: String, caFile: String?) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            ["http", "https"].contains(scheme), var host = components.host, !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let secure = scheme == "https"
        let defaultPort = secure ? 443 : 80
        let port = components.port ?? defaultPort
        guard (1...65535).contains(port) else { return nil }
        origin = Origin(secure: secure, host: host, port: port, caFile: secure ? caFile : nil)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
        let named = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == defaultPort ? named : "\(named):\(port)"
    }
}
