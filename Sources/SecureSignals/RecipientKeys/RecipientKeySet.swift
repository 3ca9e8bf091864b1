import SharedTypes
import SignalCrypto
import Timing

/// A recipient's key configurations as last fetched from its `key_url`, with when and for how
/// long: fresh until its lifetime ends, then stale (still sealed with, while refreshes fail) for
/// up to the recipient's `max_stale_ms`, then expired (its signals answer `no_recipient_key`).
public struct RecipientKeySet: Sendable, Equatable {
    /// In the publisher's order: the first whose suite the daemon supports seals.
    public var configs: [KeyConfig]
    /// Wall-clock milliseconds.
    public var fetchedAt: Int64
    public var lifetime: Duration

    public init(configs: [KeyConfig], fetchedAt: Int64, lifetime: Duration) {
        self.configs = configs
        self.fetchedAt = fetchedAt
        self.lifetime = lifetime
    }

    public var freshUntil: Int64 { fetchedAt + lifetime.wholeMilliseconds }

    public func staleUntil(maxStale: Duration) -> Int64 { freshUntil + maxStale.wholeMilliseconds }

    /// `.fresh`, `.stale` or `.expired` (never `.unavailable`: that is having no set).
    public func state(at now: Int64, maxStale: Duration) -> RecipientKeyState {
        if now < freshUntil { return .fresh }
        return now < staleUntil(maxStale: maxStale) ? .stale : .expired
    }

    /// When to fetch again: at half the lifetime, moved by up to a tenth of it either way
    /// (`jitter` in -1...1) so that a fleet does not fetch in step.
    public func refreshAt(jitter: Double) -> Int64 {
        let half = lifetime.wholeMilliseconds / 2
        return fetchedAt + half + Int64(Double(lifetime.wholeMilliseconds) / 10 * max(-1, min(1, jitter)))
    }

    /// The key ids, in order.
    public var keyIDs: [UInt8] { configs.map(\.keyID) }
}
