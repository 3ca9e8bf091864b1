import Mediation
import SharedTypes
import Synchronization

/// What a bidder's answer owes it, by the outcome of its winning bid: its `nurl` (and its `burl`
/// at the impression), or its `lurl` with the reason; the other bids' losses either way. A winner whose markup was fetched from its
/// `nurl` was told it won by that fetch: no notice of its own follows, whatever the outcome.
final class OpenRTBBidNotices: BidNotices {
    private let auction: BidResponseReader.Auction
    private let servedOnWin = Atomic<Bool>(false)

    init(_ auction: BidResponseReader.Auction) {
        self.auction = auction
    }

    /// The winner's markup is being fetched from its `nurl` (OpenRTB 2.6 §6.3.1).
    func fetchingMarkupFromWinNotice() {
        servedOnWin.store(true, ordering: .sequentiallyConsistent)
    }

    private var winnerTold: Bool { servedOnWin.load(ordering: .sequentiallyConsistent) }

    func won() -> NoticeURLs {
        NoticeURLs(wins: winnerTold ? [] : auction.winNotice.map { [$0] } ?? [], losses: auction.lossNotices)
    }

    var billing: [String] { auction.billingNotice.map { [$0] } ?? [] }

    func lost(_ reason: AuctionLossReason, minimumToWin: Double?) -> NoticeURLs {
        let own = winnerTold ? nil : auction.winnerLossNotice
        let expanded = own.map { auction.macros.lost(reason, minimumToWin: minimumToWin).expand($0) }
        return NoticeURLs(losses: (expanded.map { [$0] } ?? []) + auction.lossNotices)
    }
}
