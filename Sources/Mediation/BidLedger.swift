import Synchronization

/// Every bid's fate, from the moment a network hands it over (`open`) until it is settled,
/// exactly once: won, or lost with its reason. The waterfall, the auction, the store and the
/// networks settle bids here rather than carry closures; this is the one place that sends win
/// and loss notices, through the tracker queue's durable outbox (a crash loses none). A second
/// settlement of a bid, whoever asks, does nothing.
public final class BidLedger: Sendable {
    private struct State {
        var next: UInt64 = 0
        var open: [UInt64: any BidNotices] = [:]
    }

    private let trackers: TrackerQueue
    private let state = Mutex(State())

    public init(trackers: TrackerQueue) {
        self.trackers = trackers
    }

    /// Takes a bid's notices: from now on it is owed one outcome.
    public func open(_ notices: any BidNotices) -> OwedBid {
        state.withLock { state in
            state.next += 1
            state.open[state.next] = notices
            return OwedBid(id: state.next)
        }
    }

    /// Settles `bid` as `outcome` and sends what that owes, unless it was settled already (or
    /// is nil: nothing is owed).
    public func settle(_ bid: OwedBid?, _ outcome: BidOutcome) {
        guard let bid, let notices = state.withLock({ $0.open.removeValue(forKey: bid.id) }) else { return }
        let urls: NoticeURLs
        switch outcome {
        case .won: urls = notices.won()
        case .lost(let reason, let minimumToWin): urls = notices.lost(reason, minimumToWin: minimumToWin)
        }
        if !urls.wins.isEmpty { trackers.enqueue(urls.wins, kind: .win) }
        if !urls.losses.isEmpty { trackers.enqueue(urls.losses, kind: .loss) }
    }

    /// Sends loss notices already decided: the bids of a bidder's own auction that chose no
    /// winner, settled as they are handed over.
    public func lost(_ urls: [String]) {
        if !urls.isEmpty { trackers.enqueue(urls, kind: .loss) }
    }

    /// How many bids are still owed an outcome.
    public var unsettled: Int { state.withLock { $0.open.count } }
}
