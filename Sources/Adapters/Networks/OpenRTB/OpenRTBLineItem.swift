import Mediation
import SecureSignals
import SharedTypes
import Timing

/// One `openrtb` line item's options: where its bidder is and what to ask it for. Decoded once,
/// when the configuration is read; each load only fills in what they leave to the network and
/// the ad unit (`OpenRTBAsk`).
@Settings
public struct OpenRTBLineItem: Decodable, Sendable, Equatable, RewardOptions {
    /// The bidder's URL; the setup's `endpoint` when not set.
    var endpoint: String?
    /// The whole auction's, signals included: never less than a bidder's least `tmax`.
    @WireName("timeout_ms") @Bounds(Self.leastTimeout...60_000) var timeoutMilliseconds = 800
    @Bounds(0...1_000_000, "a CPM") var bidfloor: Double?
    /// ISO 4217: the ad unit's when not set, and only the same as it when set.
    var currency: String?
    /// The signal adapters whose envelopes go in `user.ext.secure_signals`.
    var signals: [String] = []
    /// Only envelopes sealed for this recipient (all of them when nil).
    var recipient: String?
    var headers: [String: String] = [:]
    var rewardType = "reward"
    var rewardAmount = 1.0

    static let leastTimeout = Int(milliseconds(AuctionTiming.minimumTmax))

    public func validate(at codingPath: [any CodingKey]) throws {
        if let currency, currency.count != 3 || !currency.allSatisfy({ $0.isLetter && $0.isUppercase }) {
            throw StrictJSON.Failure(
                at: codingPath, CodingKeys.currency, "must be an ISO 4217 code such as USD, not \"\(currency)\"")
        }
    }
}

/// What one load asks its bidder: a line item's options, with the setup's `endpoint` and the
/// ad unit's currency and floor where the options leave them out.
struct OpenRTBAsk: Sendable {
    let options: OpenRTBLineItem
    let endpoint: String
    let currency: String
    /// The higher of the option's and the ad unit's.
    let bidfloor: Double?

    /// A currency the options name must be the unit's, or the bidder would be told the unit's
    /// floor in the wrong money and every bid refused.
    init(_ options: OpenRTBLineItem, defaultEndpoint: String?, unitCurrency: String, unitFloor: Double?)
        throws(AdLoadError)
    {
        guard let endpoint = options.endpoint ?? defaultEndpoint, !endpoint.isEmpty else {
            throw AdLoadError(.invalidRequest, "option 'endpoint' is required: the bidder's URL")
        }
        let currency = options.currency ?? unitCurrency
        guard currency == unitCurrency else {
            throw AdLoadError(
                .invalidRequest,
                "option 'currency' is \(currency), but the ad unit's prices are in \(unitCurrency) (its 'currency'): leave the option out or make them the same"
            )
        }
        self.options = options
        self.endpoint = endpoint
        self.currency = currency
        bidfloor = unitFloor.map { max(options.bidfloor ?? 0, $0) } ?? options.bidfloor
    }
}
