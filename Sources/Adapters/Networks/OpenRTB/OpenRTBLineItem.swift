import Mediation
import SecureSignals
import SharedTypes
import Timing

/// One `openrtb` line item's options: where its bidder is and what to ask it for.
struct OpenRTBLineItem: Sendable {
    var endpoint: String
    var timeoutMilliseconds: Int
    var bidfloor: Double?
    var currency: String
    /// The signal adapters whose envelopes go in `user.ext.secure_signals`.
    var signals: [String]
    /// Only envelopes sealed for this recipient (all of them when nil).
    var recipient: String?
    var headers: [String: String]
    var reward: Reward

    static let defaultTimeoutMilliseconds = 800
    static let keys: OptionKeys = [
        "endpoint", "timeout_ms", "bidfloor", "currency", "signals", "recipient", "headers", "reward_type",
        "reward_amount",
    ]

    /// Reads `options`, with `endpoint` from the network's setup when the line item has none.
    /// `currency` is the ad unit's (`unitCurrency`); one the option names must be the same, or the
    /// bidder would be told the unit's floor in the wrong money and every bid refused.
    init(_ options: AdapterOptions, defaultEndpoint: String?, unitCurrency: String) throws(AdLoadError) {
        guard let endpoint = try options.read({ try options.string("endpoint") }) ?? defaultEndpoint, !endpoint.isEmpty
        else {
            throw AdLoadError(.invalidRequest, "option 'endpoint' is required: the bidder's URL")
        }
        self.endpoint = endpoint
        timeoutMilliseconds = try options.timeoutMilliseconds("timeout_ms", default: Self.defaultTimeoutMilliseconds)
        let least = Int(milliseconds(AuctionTiming.minimumTmax))
        guard timeoutMilliseconds >= least else {
            throw AdLoadError(
                .invalidRequest, "option 'timeout_ms' must be at least \(least): a bidder is never asked with less")
        }
        bidfloor = try options.read { try options.number("bidfloor") }
        if let bidfloor, bidfloor < 0 { throw AdLoadError(.invalidRequest, "option 'bidfloor' must not be negative") }
        currency = try options.read { try options.string("currency") } ?? unitCurrency
        guard currency.count == 3, currency.allSatisfy({ $0.isLetter && $0.isUppercase }) else {
            throw AdLoadError(.invalidRequest, "option 'currency' must be an ISO 4217 code such as USD")
        }
        guard currency == unitCurrency else {
            throw AdLoadError(
                .invalidRequest,
                "option 'currency' is \(currency), but the ad unit's prices are in \(unitCurrency) (its 'currency'): leave the option out or make them the same"
            )
        }
        signals = try options.read { try options.strings("signals") } ?? []
        recipient = try options.read { try options.string("recipient") }
        headers = try options.read { try options.stringMap("headers") } ?? [:]
        reward = try options.reward()
    }
}
