import SharedTypes

/// What a bid owes its bidder for each outcome: the URLs that tell it. A network hands this to
/// the `BidLedger` with its bid; the ledger asks it once, for the one outcome the bid gets.
public protocol BidNotices: Sendable {
    /// What a win sends: the bidder's win notice, and the losses of the bids it beat in its own
    /// auction.
    func won() -> NoticeURLs
    /// What a loss for `reason` sends; `minimumToWin` is the price that would have won, when known.
    func lost(_ reason: AuctionLossReason, minimumToWin: Double?) -> NoticeURLs
    /// What a won bid's impression sends (OpenRTB's `burl`): owed only once its ad is shown.
    var billing: [String] { get }
}

extension BidNotices {
    public var billing: [String] { [] }
}

/// The notices one outcome sends, by the tracker queue's kinds.
public struct NoticeURLs: Sendable, Equatable {
    public var wins: [String]
    public var losses: [String]

    public init(wins: [String] = [], losses: [String] = []) {
        self.wins = wins
        self.losses = losses
    }
}

/// A bid the ledger holds until it is settled: what ads and bids refer to it by.
public struct OwedBid: Sendable, Hashable {
    let id: UInt64
}

/// How a bid ends: every bid handed to the ledger gets one of these, once.
public enum BidOutcome: Sendable, Equatable {
    /// Its ad was kept (MAX's rule: the win goes once the ad is known to be usable).
    case won
    /// OpenRTB's reason, and the price that would have won when known.
    case lost(AuctionLossReason, minimumToWin: Double? = nil)
}
