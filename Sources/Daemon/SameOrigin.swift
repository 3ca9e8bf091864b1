import FoundationEssentials

/// Where a redirect may lead: only to the origin (scheme, host and port) of the URL it
/// answered, for what carries the daemon's requests to a server the configuration names (a
/// bid request, an ad tag, a key set), so that none is sent to a server nobody configured.
enum SameOrigin {
    /// `location` resolved against `current`; nil when it cannot be read.
    static func resolve(_ location: String, against current: String) -> URL? {
        guard let base = URL(string: current) else { return nil }
        return URL(string: location, relativeTo: base)?.absoluteURL
    }

    /// Whether `next` has `current`'s scheme, host and port (a port left out is the scheme's:
    /// `http://h` and `http://h:80` are one origin).
    static func holds(_ next: URL, from current: String) -> Bool {
        guard let base = URL(string: current) else { return false }
        return next.scheme?.lowercased() == base.scheme?.lowercased()
            && next.host?.lowercased() == base.host?.lowercased() && port(of: next) == port(of: base)
    }

    private static func port(of url: URL) -> Int? {
        url.port ?? ["http": 80, "https": 443][url.scheme?.lowercased() ?? ""]
    }

    /// Only the scheme and host of where a redirect pointed: its path and query may carry tokens.
    static func redacted(_ location: String) -> String {
        guard let url = URL(string: location), let host = url.host else { return "a relative or unreadable URL" }
        return "\(url.scheme ?? "?")://\(host)"
    }
}
