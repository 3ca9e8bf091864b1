/// Why a bid lost: OpenRTB 2.6's loss reason codes (list 5.25), as `${AUCTION_LOSS}` carries them.
public enum AuctionLossReason: Int, Sendable, Codable {
    /// The bid could not serve: its markup did not load, or was not usable.
    case internalError = 1
    case expired = 2
    /// The bidder's answer could not be used: a bid in another currency, or an impossible price.
    case invalidResponse = 3
    case belowFloor = 100
    /// Lost to a higher bid, or to a waterfall line item worth more.
    case outbid = 102
    /// A bid for another format than the unit's (`mtype`).
    case incorrectFormat = 204
    case advertiserExcluded = 205
    case appExcluded = 206
    case categoryExcluded = 209
    case creativeAttributeExcluded = 210
}
