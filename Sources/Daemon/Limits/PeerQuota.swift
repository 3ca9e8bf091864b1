import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counts what holders have at once (connections by peer uid; requests and event streams by
/// app) against a cap in all and a cap per holder. The last unit of the total is kept for the
/// privileged holders (root and the daemon's own uid, or their apps: the operator's CLI), so
/// that apps holding all they may cannot lock them out. Shared by every connection of one daemon.
final class PeerQuota<Holder: Hashable & Sendable>: Sendable {
    /// Why `acquire` refused: the cap that was reached.
    enum Refusal: Equatable, Sendable {
        case total(Int)
        case perPeer(Int)
    }

    private struct Counts {
        var total = 0
        var byHolder: [Holder: Int] = [:]
    }

    let total: Int?
    let perPeer: Int?
    /// Holders that may take the unit of the total kept in reserve.
    let privileged: Set<Holder>
    private let counts = Mutex(Counts())

    init(total: Int?, perPeer: Int?, privileged: Set<Holder>) {
        self.total = total
        self.perPeer = perPeer
        self.privileged = privileged
    }

    /// Takes one unit for `holder`, or says which cap refuses it; every unit taken is released once.
    func acquire(_ holder: Holder) -> Refusal? {
        counts.withLock { counts in
            if let total {
                let open = privileged.contains(holder) ? total : max(1, total - 1)
                if counts.total >= open { return .total(total) }
            }
            let held = counts.byHolder[holder, default: 0]
            if let perPeer, held >= perPeer { return .perPeer(perPeer) }
            counts.total += 1
            counts.byHolder[holder] = held + 1
            return nil
        }
    }

    func release(_ holder: Holder) {
        counts.withLock { counts in
            counts.total -= 1
            let held = counts.byHolder[holder, default: 1] - 1
            counts.byHolder[holder] = held > 0 ? held : nil
        }
    }

    /// Units `holder` holds now.
    func held(by holder: Holder) -> Int { counts.withLock { $0.byHolder[holder, default: 0] } }

    /// Units held now, in all.
    var held: Int { counts.withLock { $0.total } }
}
