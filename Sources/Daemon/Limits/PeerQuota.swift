import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counts what peers hold at once (connections, requests, event streams) against a cap in all
/// and a cap per peer uid. The last unit of the total is kept for the privileged uids (root and
/// the daemon's own: the operator's CLI), so that apps holding all they may cannot lock them
/// out. Shared by every connection of one daemon.
final class PeerQuota: Sendable {
    /// Why `acquire` refused: the cap that was reached.
    enum Refusal: Equatable, Sendable {
        case total(Int)
        case perPeer(Int)
    }

    private struct Counts {
        var total = 0
        /// nil: a peer whose credentials cannot be read (not AF_UNIX); they share one share.
        var byPeer: [UInt32?: Int] = [:]
    }

    let total: Int?
    let perPeer: Int?
    /// Uids that may take the unit of the total kept in reserve.
    let privileged: Set<UInt32>
    private let counts = Mutex(Counts())

    init(total: Int?, perPeer: Int?, privileged: Set<UInt32> = [0, getuid()]) {
        self.total = total
        self.perPeer = perPeer
        self.privileged = privileged
    }

    /// Takes one unit for `peer`, or says which cap refuses it; every unit taken is released once.
    func acquire(peer: UInt32?) -> Refusal? {
        counts.withLock { counts in
            if let total {
                let open = peer.map(privileged.contains) == true ? total : max(1, total - 1)
                if counts.total >= open { return .total(total) }
            }
            let held = counts.byPeer[peer, default: 0]
            if let perPeer, held >= perPeer { return .perPeer(perPeer) }
            counts.total += 1
            counts.byPeer[peer] = held + 1
            return nil
        }
    }

    func release(peer: UInt32?) {
        counts.withLock { counts in
            counts.total -= 1
            let held = counts.byPeer[peer, default: 1] - 1
            counts.byPeer[peer] = held > 0 ? held : nil
        }
    }

    /// Units held now, in all.
    var held: Int { counts.withLock { $0.total } }
}
