import SharedTypes
import Synchronization

/// Every bid's fate, from the moment a network hands it over (`open`) until it is settled,
/// exactly once: won (its win notices when its ad is kept, its billing at the ad's impression),
/// or lost with its reason. The waterfall, the auction, the store and the networks settle bids
/// here rather than carry closures; this is the one place that sends win, loss and billing
/// notices, through the tracker queue's durable outbox (a crash loses none). A second
/// settlement of a bid, whoever asks, does nothing.
public final class BidLedger: Sendable {
    /// What a bid still owes.
    private enum Owed {
        /// Its outcome; `source` notes its notices in its load's trace.
        case outcome(any BidNotices, source: NoticeLog.Source?)
        /// It won: its billing, at its ad's impression.
        case billing([String], source: NoticeLog.Source?)
    }

    private struct State {
        var next: UInt64 = 0
        var open: [UInt64: Owed] = [:]
    }

    private let trackers: TrackerQueue
    private let state = Mutex(State())

    public init(trackers: TrackerQueue) {
        self.trackers = trackers
    }

    /// Takes a bid's notices: from now on it is owed one outcome. `source`: where its load's
    /// trace notes each notice and its tries.
    public func open(_ notices: any BidNotices, source: NoticeLog.Source? = nil) -> OwedBid {
        state.withLock { state in
            state.next += 1
            state.open[state.next] = .outcome(notices, source: source)
            return OwedBid(id: state.next)
        }
    }

    /// Settles `bid` as `outcome` and sends what that owes, unless it was settled already (or
    /// is nil: nothing is owed). A won bid with billing stays until its ad's impression.
    public func settle(_ bid: OwedBid?, _ outcome: BidOutcome) {
        guard let bid else { return }
        let owed = state.withLock { state -> (any BidNotices, NoticeLog.Source?)? in
            guard case .outcome(let notices, let source) = state.open[bid.id] else { return nil }
            let billing = outcome == .won ? notices.billing : []
            state.open[bid.id] = billing.isEmpty ? nil : .billing(billing, source: source)
            return (notices, source)
        }
        guard let (notices, source) = owed else { return }
        let urls: NoticeURLs
        switch outcome {
        case .won:
            urls = notices.won()
        case .lost(let reason, let minimumToWin):
            urls = notices.lost(reason, minimumToWin: minimumToWin)
        }
        if !urls.wins.isEmpty { trackers.enqueue(urls.wins, kind: .win, observer: source.map { $0.observer(.win) }) }
        if !urls.losses.isEmpty {
            trackers.enqueue(urls.losses, kind: .loss, observer: source.map { $0.observer(.loss) })
        }
    }

    /// The impression of the ad a won bid serves: its billing goes, once, each URL filled by
    /// `macros` as the ad's other impression trackers are.
    public func bill(_ bid: OwedBid?, macros: (String) -> String = { $0 }) {
        guard let (urls, source) = take(bid) else { return }
        trackers.enqueue(urls.map(macros), kind: .impression, observer: source.map { $0.observer(.billing) })
    }

    /// The ad a won bid serves left the store without an impression (it expired, was displaced
    /// or dropped for privacy): its billing is not owed. Nothing is sent: the bid was told it won.
    public func adLeft(_ bid: OwedBid?) {
        _ = take(bid)
    }

    /// A won bid's billing, taken out of the ledger; nil when none is owed.
    private func take(_ bid: OwedBid?) -> ([String], NoticeLog.Source?)? {
        guard let bid else { return nil }
        return state.withLock { state in
            guard case .billing(let urls, let source) = state.open[bid.id] else { return nil }
            state.open[bid.id] = nil
            return (urls, source)
        }
    }

    /// Sends loss notices already decided: the bids of a bidder's own auction that chose no
    /// winner, settled as they are handed over.
    public func lost(_ urls: [String], source: NoticeLog.Source? = nil) {
        if !urls.isEmpty { trackers.enqueue(urls, kind: .loss, observer: source.map { $0.observer(.loss) }) }
    }

    /// How many bids are still owed something: an outcome, or a won bid's billing.
    public var unsettled: Int { state.withLock { $0.open.count } }
}
