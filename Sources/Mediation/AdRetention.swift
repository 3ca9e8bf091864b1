import DequeModule
import HeapModule

/// The ads a store holds, and when each leaves it: an hour after its expiry (until then it
/// answers `ad_expired`), a minute after its dismiss, at once when it falls unused out of its
/// unit's latest `unusedKeptPerUnit` loads (forced loads that supersede one another do not pile
/// up ads nobody will show; its test loads' ads are counted apart, `unusedTestKeptPerUnit`), and whenever the store holds more than `capacity`: used and
/// expired ads first, oldest first, then the oldest unused one; and likewise whenever their bytes
/// add up to more than `byteCapacity`. A plain value on the store's
/// clock, so its rules are tested without it. An ad that leaves unused tells the ledger
/// (`bids`): its bid's billing is no longer owed.
struct AdRetention {
    /// How many of a unit's latest loads keep their ads while unused.
    static let unusedKeptPerUnit = 16
    /// How many of a unit's latest test loads do, counted apart: a developer's tries never push
    /// the unit's real ads out.
    static let unusedTestKeptPerUnit = 2
    /// How long an expired ad still answers `ad_expired` before it is forgotten.
    static let keptAfterExpiry = Duration.seconds(3600)
    /// How long a dismissed ad still answers `GET /v1/ads/{id}`.
    static let keptAfterDismiss = Duration.seconds(60)

    /// The most ads held at once (`limits.max_stored_ads`).
    let capacity: Int
    /// The most bytes the ads held may add up to (`limits.max_stored_ad_bytes`).
    let byteCapacity: Int
    /// Where the bids the ads serve are settled.
    let bids: BidLedger?
    /// What the ads held add up to, by `LoadedAd.bytes`.
    private(set) var bytes = 0
    private var ads: [String: LoadedAd] = [:]
    /// Every ad in load order, oldest first (entries of ads already gone are skipped).
    private var order = Deque<String>()
    /// The ads that were used, in the order they were (entries of ads already gone are skipped).
    private var used = Deque<String>()
    /// When each dismissed ad leaves: a minute after its dismiss.
    private var dismissedLeave: [String: Duration] = [:]
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

    init(capacity: Int = 2000, byteCapacity: Int = AdContentLimits().maximumStoredAdBytes, bids: BidLedger? = nil) {
        self.capacity = capacity
        self.byteCapacity = byteCapacity
        self.bids = bids
    }

    /// Drops the ad `id`, if held, and its bytes; one that `leaves` (rather than being kept
    /// again) settles what its bid still owes.
    private mutating func remove(_ id: String, leaves: Bool = true) {
        guard let ad = ads.removeValue(forKey: id) else { return }
        bytes -= ad.bytes
        if leaves { bids?.adLeft(ad.fill.ad.bid) }
    }

    subscript(id: String) -> LoadedAd? { ads[id] }

    /// How many ads are held, expired ones included.
    var count: Int { ads.count }

    /// Holds a new ad, dropping its unit's oldest unused one beyond the latest
    /// `unusedKeptPerUnit`, and others past `capacity`; returns how many unused ads (of any
    /// unit) the capacity took.
    @discardableResult
    mutating func keep(_ ad: LoadedAd, now: Duration) -> Int {
        remove(ad.id, leaves: false)
        ads[ad.id] = ad
        bytes += ad.bytes
        order.append(ad.id)
        if ad.isUsed { used.append(ad.id) }
        drops.insert(Drop(at: ad.expiresAt + Self.keptAfterExpiry, id: ad.id))
        let unit = ad.test ? "test\u{0}" + ad.unit.id : ad.unit.id
        var queue = latest[unit, default: []]
        queue.append(ad.id)
        while queue.count > (ad.test ? Self.unusedTestKeptPerUnit : Self.unusedKeptPerUnit),
            let oldest = queue.popFirst()
        {
            if let old = ads[oldest], !old.isUsed { remove(oldest) }
        }
        latest[unit] = queue
        // Dropped ads leave their entries behind; rebuild before those outnumber the live ones.
        if drops.count > 2 * ads.count + 1024 {
            dismissedLeave = dismissedLeave.filter { ads[$0.key] != nil }
            drops = Heap(ads.values.map { Drop(at: leave(of: $0), id: $0.id) })
        }
        if order.count > 2 * ads.count + 1024 {
            order = Deque(order.filter { ads[$0] != nil })
            used = Deque(used.filter { ads[$0] != nil })
        }
        return makeRoom(now: now, keeping: ad.id)
    }

    /// When `ad` leaves: an hour after its expiry, or a minute after its dismiss if that is sooner.
    private func leave(of ad: LoadedAd) -> Duration {
        min(ad.expiresAt + Self.keptAfterExpiry, dismissedLeave[ad.id] ?? .seconds(Int64.max))
    }

    /// Drops ads until no more than `capacity` are held, adding up to no more than
    /// `byteCapacity`: of the oldest used ad and the ad that expired first (the soonest to
    /// leave, if it expired or was used), the older first; when neither is there, the oldest
    /// (unused) ad. Two never go: `kept`, the ad just kept (the store checked it alone, and
    /// answers with it), and a rewarded ad being shown (shown, not yet dismissed: its reward
    /// is still to come); when only they are left the store stays over until they leave (a
    /// shown ad at most an hour after its expiry). Returns how many unused ones went.
    private mutating func makeRoom(now: Duration, keeping kept: String) -> Int {
        var unusedDropped = 0
        while ads.count > capacity || (bytes > byteCapacity && ads.count > 1) {
            while let id = order.first, ads[id] == nil { order.removeFirst() }
            while let id = used.first, ads[id] == nil { used.removeFirst() }
            while let first = drops.min, ads[first.id] == nil { drops.removeMin() }
            var oldestUsed: LoadedAd?
            for id in used {
                if let ad = ads[id], !ad.isBeingShown, ad.id != kept {
                    oldestUsed = ad
                    break
                }
            }
            let oldestExpired = drops.min.flatMap { ads[$0.id] }.flatMap {
                ($0.expiresAt <= now || $0.isUsed) && !$0.isBeingShown && $0.id != kept ? $0 : nil
            }
            switch (oldestUsed, oldestExpired) {
            case (let used?, let expired?): remove(used.loadedAt <= expired.loadedAt ? used.id : expired.id)
            case (let used?, nil): remove(used.id)
            case (nil, let expired?): remove(expired.id)
            case (nil, nil):
                guard
                    let index = order.firstIndex(where: { ads[$0].map { !$0.isBeingShown && $0.id != kept } ?? false })
                else {
                    return unusedDropped
                }
                let oldest = order.remove(at: index)
                if ads[oldest]?.isUsed == false { unusedDropped += 1 }
                remove(oldest)
            }
        }
        return unusedDropped
    }

    /// A minute after its dismiss, a shown ad has nothing left to do: it leaves.
    mutating func dismissed(_ id: String, now: Duration) {
        guard ads[id] != nil else { return }
        dismissedLeave[id] = now + Self.keptAfterDismiss
        drops.insert(Drop(at: now + Self.keptAfterDismiss, id: id))
    }

    /// Records what happened to an ad still held; one already dropped stays dropped.
    mutating func update(_ ad: LoadedAd) {
        guard let held = ads[ad.id] else { return }
        if ad.isUsed, !held.isUsed { used.append(ad.id) }
        ads[ad.id] = ad
        bytes += ad.bytes - held.bytes
    }

    /// Drops the ads whose time to leave is before `now`, in time proportional to what it drops.
    mutating func sweep(now: Duration) {
        while let first = drops.min, first.at < now {
            drops.removeMin()
            remove(first.id)
            dismissedLeave[first.id] = nil
        }
    }

    /// Drops every unused ad `isStale` says no longer fits; returns how many went.
    mutating func dropUnused(where isStale: (LoadedAd) -> Bool) -> Int {
        let stale = ads.values.filter { !$0.isUsed && isStale($0) }.map(\.id)
        for id in stale { remove(id) }
        return stale.count
    }

    /// How many drop entries are kept (live ones and those of ads already gone).
    var pendingDrops: Int { drops.count }
}
