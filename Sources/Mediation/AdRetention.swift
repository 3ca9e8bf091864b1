import DequeModule
import HeapModule

/// The ads a store holds, and when each leaves it: an hour after its expiry (until then it
/// answers `ad_expired`), or at once when it falls unused out of its unit's latest
/// `unusedKeptPerUnit` loads (forced loads that supersede one another do not pile up ads
/// nobody will show). A plain value on the store's clock, so its rules are tested without it.
struct AdRetention {
    /// How many of a unit's latest loads keep their ads while unused.
    static let unusedKeptPerUnit = 16
    /// How long an expired ad still answers `ad_expired` before it is forgotten.
    static let keptAfterExpiry = Duration.seconds(3600)

    private var ads: [String: LoadedAd] = [:]
    /// When each ad leaves, soonest first (entries of ads already gone are skipped).
    private var drops = Heap<Drop>()
    /// Each unit's latest ads, in load order: an ad that falls off the end unused is dropped.
    private var latest: [String: Deque<String>] = [:]

    /// One ad's time to leave.
    private struct Drop: Comparable {
        var at: Duration
        var id: String

        static func < (lhs: Drop, rhs: Drop) -> Bool { lhs.at < rhs.at }
    }

    subscript(id: String) -> LoadedAd? { ads[id] }

    /// How many ads are held, expired ones included.
    var count: Int { ads.count }

    /// Holds a new ad, dropping its unit's oldest unused one beyond the latest
    /// `unusedKeptPerUnit`.
    mutating func keep(_ ad: LoadedAd) {
        ads[ad.id] = ad
        drops.insert(Drop(at: ad.expiresAt + Self.keptAfterExpiry, id: ad.id))
        var queue = latest[ad.unit.id, default: []]
        queue.append(ad.id)
        while queue.count > Self.unusedKeptPerUnit, let oldest = queue.popFirst() {
            if let old = ads[oldest], !old.isUsed { ads[oldest] = nil }
        }
        latest[ad.unit.id] = queue
        // Dropped ads leave their entries behind; rebuild before those outnumber the live ones.
        if drops.count > 2 * ads.count + 1024 {
            drops = Heap(ads.values.map { Drop(at: $0.expiresAt + Self.keptAfterExpiry, id: $0.id) })
        }
    }

    /// Records what happened to an ad still held; one already dropped stays dropped.
    mutating func update(_ ad: LoadedAd) {
        guard ads[ad.id] != nil else { return }
        ads[ad.id] = ad
    }

    /// Drops the ads whose time to leave is before `now`, in time proportional to what it drops.
    mutating func sweep(now: Duration) {
        while let first = drops.min, first.at < now {
            drops.removeMin()
            ads[first.id] = nil
        }
    }

    /// How many drop entries are kept (live ones and those of ads already gone).
    var pendingDrops: Int { drops.count }
}
