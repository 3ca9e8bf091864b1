/// How a load went: every bid asked for, every line item (and bid) tried, in order, and which
/// one filled.
@WireKeys
@MemberwiseInit
public struct ResponseInfo: Sendable, Codable, Equatable {
    public var attempts: [Attempt]
    /// The auction's bids; nil for a unit without bidders.
    public var bids: [Bid]?
    /// The network that filled, if one did.
    public var network: String?
    /// How the filling request was served, as Google defines the modes.
    public var servingMode: ServingMode?

    /// A line item (or bid) tried, in order.
    @WireKeys
    @MemberwiseInit
    public struct Attempt: Sendable, Codable, Equatable {
        public enum Outcome: String, Sendable, Codable {
            case filled
            case noFill = "no_fill"
            case timeout
            case error
            /// The network failed to set up, or is not known.
            case notReady = "not_ready"
            /// The privacy state in force denies it (the message says why); not asked.
            case consentMissing = "consent_missing"
        }

        public var network: String
        public var parameter: String
        public var outcome: Outcome
        @WireName("latency_ms") public var latencyMilliseconds: Double
        /// Why it did not fill.
        public var message: String?
    }

    /// A bidder's answer in the auction that began the load.
    @WireKeys
    @MemberwiseInit
    public struct Bid: Sendable, Codable, Equatable {
        public enum Outcome: String, Sendable, Codable {
            /// Its ad served.
            case won
            /// `loss_reason` says why.
            case lost
            case noBid = "no_bid"
            /// No answer within the bidders' time.
            case timeout
            case error
            case notReady = "not_ready"
            case consentMissing = "consent_missing"
        }

        public var network: String
        public var parameter: String
        /// CPM, when it bid.
        public var price: Double?
        public var outcome: Outcome
        /// The OpenRTB loss reason its loss notice carried.
        public var lossReason: AuctionLossReason?
        @WireName("latency_ms") public var latencyMilliseconds: Double
        public var message: String?
    }
}
