import SharedTypes
import Timing

/// A network that bids: asked for a price first, with the ad unit's other bidders, and asked to
/// load the ad behind its bid only if the price earns it a turn (MAX's unified auction, Prebid).
/// It hands each bid's notices to the `BidLedger` (`services.bids`), which settles the bid once:
/// the win once the ad is usable, the loss with its reason otherwise.
public protocol BiddingAdNetwork: AdNetworkAdapter {
    /// Asks for a bid before `request.deadline`, telling the bidder it has until then less
    /// `request.networkBuffer`. No bid is a `noFill` throw; a bid the network itself passed
    /// over (under the floor, blocked by the unit) is `.passedOver`, which keeps its price.
    func bid(_ request: NetworkAdRequest, format: AdFormat) async throws(AdLoadError) -> BidAnswer
}

/// A bidder's answer: a bid that may serve, or its best bid that its network passed over
/// itself, with the reason the bid's loss notice carried (the network has sent it).
public enum BidAnswer: Sendable {
    case bid(NetworkBid)
    case passedOver(PassedOverBid)
}

/// A bid its network refused before the unit's auction: its price (CPM), the OpenRTB loss
/// reason, and why, said for `response_info`.
public struct PassedOverBid: Sendable, Equatable {
    public var price: Double
    public var reason: AuctionLossReason
    public var message: String
    public var details: BidDetails

    public init(price: Double, reason: AuctionLossReason, message: String, details: BidDetails = .none) {
        self.price = price
        self.reason = reason
        self.message = message
        self.details = details
    }
}

/// A network's bid: its price, how to load its ad, and its place in the ledger.
public struct NetworkBid: Sendable {
    /// CPM, in `currency`.
    public var price: Double
    public var currency: String
    /// Loads the ad the bid is for, before `deadline` (its turn's, not the bid's); a throw
    /// means the bid could not serve.
    public var load: @Sendable (_ deadline: Deadline) async throws(AdLoadError) -> NetworkAd
    /// What the bid owes, handed to the ledger (`BidLedger.open`): the auction, the waterfall
    /// and the store settle it there.
    public var owed: OwedBid
    /// Who the bid is from and what it is for (seat, bid id, creative, advertiser domains).
    public var details: BidDetails

    public init(
        price: Double, currency: String,
        load: @escaping @Sendable (_ deadline: Deadline) async throws(AdLoadError) -> NetworkAd,
        owed: OwedBid, details: BidDetails = .none
    ) {
        self.price = price
        self.currency = currency
        self.load = load
        self.owed = owed
        self.details = details
    }
}

/// How long an ad unit's bidders have (Prebid Server's `tmax` adjustments): the auction's time
/// from the start of the load, less the time the daemon keeps to finish the load (`processing`);
/// each bidder is told that, less the network's latency (`networkBuffer`), as `tmax`.
public struct AuctionTiming: Sendable, Equatable {
    public var timeout: Duration
    public var processing: Duration
    public var networkBuffer: Duration

    public init(
        timeout: Duration = .milliseconds(1000), processing: Duration = .milliseconds(50),
        networkBuffer: Duration = .milliseconds(40)
    ) {
        self.timeout = timeout
        self.processing = processing
        self.networkBuffer = networkBuffer
    }

    /// How long the daemon waits for bids, at most.
    public var bidWait: Duration { max(.milliseconds(1), timeout - processing) }

    /// The least `tmax` a bidder is asked with: under it no bidder can answer, so it is not
    /// asked at all (Prebid Server's `bidder_response_duration_min_ms`).
    public static let minimumTmax = Duration.milliseconds(10)

    /// The least time an auction must leave its bidders (`timeout` less `processing` and
    /// `networkBuffer`): the least `tmax`, and the margin a network keeps to read the answer.
    public static let minimumBidderTime = minimumTmax + NetworkAdRequest.budgetMargin
}
