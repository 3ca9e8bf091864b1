/// One ad load as the inspector shows it (`GET /v1/inspect/loads/{id}`): who asked, under what
/// privacy state, each bidder's answer and each source tried with its start and latency
/// (milliseconds from the load's start), and how it ended. Never a consent string.
@WireKeys
@MemberwiseInit
public struct LoadTrace: Sendable, Codable, Equatable {
    /// The trace's number, shared with signals traces: increasing across the daemon's life.
    public var id: UInt64
    /// The app the load was for; nil for the core's own.
    public var app: String?
    public var adUnit: String
    public var format: AdFormat
    /// When the load began: milliseconds since the Unix epoch.
    @WireName("started_at_ms") public var startedAtMilliseconds: Int64
    @WireName("duration_ms") public var durationMilliseconds: Double
    /// `filled`, or the error code it failed with (`no_fill`, `timeout`, `frequency_capped`, ...).
    public var outcome: String
    /// Why it failed.
    public var message: String?
    /// The ad it loaded.
    public var adID: String?
    /// The network that filled.
    public var network: String?
    /// The background retry this load is (1, 2, ...); nil for a load a client asked for.
    public var retry: Int?
    /// Whether it was a test load (`"test": true`).
    public var test: Bool
    public var privacy: PrivacySummary
    /// The unit's bidders, in its order; empty for a unit without bidders.
    public var bidders: [BidderTrace]
    /// The sources tried, in order: line items and bids.
    public var sources: [SourceTrace]
    /// The win, loss and billing notices its bids were owed, each with its last try's status,
    /// as of when the trace is read.
    public var notices: [NoticeTrace] = []
}

/// One bidder in a load's auction.
@WireKeys
@MemberwiseInit
public struct BidderTrace: Sendable, Codable, Equatable {
    public var network: String
    public var parameter: String
    @WireName("start_ms") public var startMilliseconds: Double
    @WireName("latency_ms") public var latencyMilliseconds: Double
    /// The time it was given to answer (OpenRTB `tmax` is this less the network's buffer).
    @WireName("time_ms") public var timeMilliseconds: Double?
    public var outcome: ResponseInfo.Bid.Outcome
    /// CPM, when it bid.
    public var price: Double?
    public var currency: String?
    public var bid: BidDetails?
    public var lossReason: AuctionLossReason?
    public var message: String?
}

/// Who a bid is from and what it is for, as the bidder said (OpenRTB `seatbid.seat`, `bid.id`,
/// `bid.crid`, `bid.adomain`).
@WireKeys
@MemberwiseInit
public struct BidDetails: Sendable, Codable, Equatable {
    public var seat: String?
    public var bidID: String?
    public var creativeID: String?
    public var advertiserDomains: [String]

    public static let none = BidDetails(seat: nil, bidID: nil, creativeID: nil, advertiserDomains: [])
}

/// One source a load tried: a waterfall line item or a bid's ad.
@WireKeys
@MemberwiseInit
public struct SourceTrace: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case lineItem = "line_item"
        case bid
    }

    public var kind: Kind
    public var network: String
    public var parameter: String
    public var outcome: ResponseInfo.Attempt.Outcome
    @WireName("start_ms") public var startMilliseconds: Double
    @WireName("latency_ms") public var latencyMilliseconds: Double
    /// The time it was given (the line item's `timeout_ms`); nil when it was not tried.
    @WireName("timeout_ms") public var timeoutMilliseconds: Double?
    public var message: String?
}
