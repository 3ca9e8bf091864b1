import FoundationEssentials
import SharedTypes
import SignalCrypto
import Synchronization

/// The keys a recipient's envelopes are sealed with now: fixed files (or the demo key), or a
/// set fetched from its `key_url` and replaced as it is refreshed, with the files as the
/// fallback while there is no usable set. Read on every seal without a hop: the fetched state
/// sits behind a lock, which only a refresh takes for writing.
public final class RecipientKeys: Sendable {
    /// The keys of files read from the configuration: the sealer of the first configuration
    /// of the first file, and every key id the files name, newest first.
    @MemberwiseInit
    public struct FileKeys: Sendable {
        public var sealer: EnvelopeSealer
        public var keyIDs: [UInt8]
    }

    /// Where a fetched set comes from and how long it may serve.
    @MemberwiseInit
    public struct KeyURL: Sendable, Equatable {
        public var url: String
        /// A PEM file of the certificate authorities that may sign the server's certificate
        /// (instead of the system's); nil for the system's.
        public var caFile: String?
        /// The lifetime of a set whose answer names no max-age.
        public var defaultMaxAge: Duration = Self.defaultDefaultMaxAge
        /// How long past its lifetime a set still seals while refreshes fail.
        public var maxStale: Duration = Self.defaultMaxStale

        public static let defaultDefaultMaxAge = Duration.seconds(86_400)
        public static let defaultMaxStale = Duration.seconds(7 * 86_400)
    }

    /// The last good fetched set, the sealer of its first configuration the daemon supports,
    /// and why the latest fetch failed (nil once one succeeds).
    private struct Fetched {
        var set: RecipientKeySet?
        var sealer: EnvelopeSealer?
        var lastError: String?
        /// When the refresh fetches next (wall-clock ms): its schedule, for the status.
        var nextFetch: Int64?
    }

    public let kind: RecipientKeySourceKind
    /// Set for a URL recipient only.
    public let keyURL: KeyURL?
    /// All a file or demo recipient has; a URL recipient's fallback, when it names files too.
    public let files: FileKeys?
    private let fetched = Mutex(Fetched())

    /// A recipient with key files (or the demo key, `demo`).
    public init(files: FileKeys, demo: Bool = false) {
        kind = demo ? .demo : .file
        keyURL = nil
        self.files = files
    }

    /// A recipient whose keys come from `url`, with `fallback` files if it names any.
    public init(url: KeyURL, fallback: FileKeys? = nil) {
        kind = .url
        keyURL = url
        files = fallback
    }

    /// The sealer in force at `now` (wall-clock milliseconds): the fetched set's unless it is
    /// missing or expired, else the files'. Throws why there is none.
    public func sealer(at now: Int64) throws(SignalError) -> EnvelopeSealer {
        guard let keyURL else {
            if let files { return files.sealer }
            throw SignalError(.noRecipientKey, "has no key")
        }
        let current = fetched.withLock { $0 }
        if let set = current.set, let sealer = current.sealer, set.state(at: now, maxStale: keyURL.maxStale) != .expired
        {
            return sealer
        }
        if let files { return files.sealer }
        var reason =
            current.set.map {
                "has only a key set that expired at \(Self.time($0.staleUntil(maxStale: keyURL.maxStale)))"
            }
            ?? "has no key set yet"
        if let error = current.lastError { reason += "; its key URL \(error)" }
        throw SignalError(.noRecipientKey, reason)
    }

    /// Puts `set` in force (a fetch's, or the one stored at the last), clearing the last
    /// error; returns the set it replaces (nil when there was none). Throws when no
    /// configuration in it can seal.
    @discardableResult
    public func install(_ set: RecipientKeySet) throws -> RecipientKeySet? {
        install(set, sealer: try Self.sealer(for: set))
    }

    /// `install` with `set`'s sealer already made (`sealer(for:)`).
    @discardableResult
    public func install(_ set: RecipientKeySet, sealer: EnvelopeSealer) -> RecipientKeySet? {
        fetched.withLock { state in
            defer { state = Fetched(set: set, sealer: sealer, lastError: nil, nextFetch: state.nextFetch) }
            return state.set
        }
    }

    /// The sealer of `set`'s first configuration whose suite the daemon supports.
    public static func sealer(for set: RecipientKeySet) throws -> EnvelopeSealer {
        guard let first = set.configs.first(where: { !$0.supportedSuites.isEmpty }) else {
            throw CryptoError.invalidKeyConfig("no configuration has a suite this daemon supports")
        }
        return try EnvelopeSealer(keyConfig: first)
    }

    /// Takes over what `other` fetched (its set and last error), for a reload that keeps the
    /// URL but changes how it is fetched or kept.
    public func carryOver(from other: RecipientKeys) {
        let taken = other.fetched.withLock { $0 }
        fetched.withLock { $0 = taken }
    }

    /// Records when the refresh fetches next (wall-clock ms).
    public func scheduleFetch(at time: Int64) {
        fetched.withLock { $0.nextFetch = time }
    }

    /// Records why a fetch failed; the set in force stays.
    public func recordFailure(_ reason: String) {
        fetched.withLock { $0.lastError = reason }
    }

    /// The fetched set in force, if any.
    public var keySet: RecipientKeySet? { fetched.withLock { $0.set } }

    /// The state of the fetched set at `now`: unavailable before the first; always fresh for files.
    public func state(at now: Int64) -> RecipientKeyState {
        state(of: keySet, at: now)
    }

    private func state(of set: RecipientKeySet?, at now: Int64) -> RecipientKeyState {
        guard let keyURL else { return .fresh }
        return set?.state(at: now, maxStale: keyURL.maxStale) ?? .unavailable
    }

    /// What `GET /v1/recipients` shows of recipient `name` at `now`.
    public func status(name: String, at now: Int64) -> RecipientStatus {
        let current = fetched.withLock { $0 }
        let state = state(of: current.set, at: now)
        let usable = state == .fresh || state == .stale
        let keyIDs = (usable ? current.set?.keyIDs : nil) ?? files?.keyIDs ?? []
        let maxStale = keyURL?.maxStale ?? .zero
        return RecipientStatus(
            name: name, source: kind, url: keyURL.map { redactedURL($0.url) }, keyIDs: keyIDs.map(Int.init),
            fetchedAt: current.set.map { Self.time($0.fetchedAt) },
            freshUntil: current.set.map { Self.time($0.freshUntil) },
            staleUntil: current.set.map { Self.time($0.staleUntil(maxStale: maxStale)) }, state: state,
            lastError: current.lastError, nextFetchAt: keyURL == nil ? nil : current.nextFetch.map(Self.time))
    }

    /// Whether `other` fetches the same keys the same way: a reload keeps the running one.
    /// (`sealer.keyConfig` equal means the same first file; the key ids, the same files.)
    public func fetchesLike(_ other: RecipientKeys) -> Bool {
        keyURL != nil && keyURL == other.keyURL && files?.keyIDs == other.files?.keyIDs
            && files?.sealer.keyConfig == other.files?.sealer.keyConfig
    }

    /// RFC 3339, UTC, to the second.
    public static func time(_ milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
    }
}
