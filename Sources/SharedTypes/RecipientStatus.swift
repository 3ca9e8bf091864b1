/// Where a recipient's keys come from.
public enum RecipientKeySourceKind: String, Sendable, Codable {
    /// Key configuration files named in the configuration.
    case file
    /// A key set fetched from the recipient's `key_url` and refreshed.
    case url
    /// The public demo key built into the daemon.
    case demo
}

/// Whether a recipient's keys may seal: a URL recipient's fetched set is fresh for its
/// lifetime, then stale (still used while refreshes fail) up to `max_stale_ms`, then expired;
/// unavailable before its first good fetch. File and demo keys are always fresh.
public enum RecipientKeyState: String, Sendable, Codable {
    case fresh, stale, expired, unavailable
}

/// One recipient as `GET /v1/recipients` shows it: every field, unknown ones as null, so that
/// clients see one shape.
@WireKeys
@MemberwiseInit
public struct RecipientStatus: Sendable, Codable, Equatable {
    public var name: String
    public var source: RecipientKeySourceKind
    @Nullable public var url: String?
    /// The ids of the keys in force, in the publisher's order (newest file first); the first
    /// whose suite the daemon supports seals. A URL recipient whose fetched set is not usable
    /// lists its fallback files' keys, or none.
    public var keyIDs: [Int]
    /// RFC 3339 times of the fetched set; null for files or before the first fetch.
    @Nullable public var fetchedAt: String?
    @Nullable public var freshUntil: String?
    @Nullable public var staleUntil: String?
    public var state: RecipientKeyState
    /// Why the latest fetch failed; null once one succeeds.
    @Nullable public var lastError: String?
    /// When the daemon fetches the set next (RFC 3339): at about half its lifetime, or after a
    /// failure's backoff; null for files, or before the refresh has started.
    @Nullable public var nextFetchAt: String?
}

/// The answer of `GET /v1/recipients`, by name.
@WireKeys
@MemberwiseInit
public struct RecipientList: Sendable, Codable, Equatable {
    public var recipients: [RecipientStatus]
}
