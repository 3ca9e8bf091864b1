import Consent
import SharedTypes

/// The privacy state's decisions for every line item of every ad unit, made once per change of
/// either: whether it may be asked (and why not), and the serving mode of its requests.
struct LineItemDecisions: Sendable {
    struct Decision: Sendable, Equatable {
        var consent: ConsentDecision
        var servingMode: ServingMode
    }

    /// The privacy state they were made under, handed to the networks with each request.
    let privacy: PrivacyState?
    private let byUnit: [String: [Decision]]
    private let byBidder: [String: [Decision]]

    init(_ policy: ConsentPolicy, units: some Sequence<AdUnit>) {
        privacy = policy.state
        let units = Array(units)
        func decide(_ item: LineItem) -> Decision {
            Decision(
                consent: policy.decide(item.consent), servingMode: policy.servingMode(vendor: item.consent.vendorID))
        }
        byUnit = Dictionary(units.map { ($0.id, $0.waterfall.map(decide)) }, uniquingKeysWith: { $1 })
        byBidder = Dictionary(units.map { ($0.id, $0.bidders.map(decide)) }, uniquingKeysWith: { $1 })
    }

    /// The decision for line item `index` of `unit`; one the units did not have is denied.
    func decision(unit: String, item index: Int) -> Decision {
        Self.decision(byUnit[unit], index)
    }

    /// The decision for bidder `index` of `unit`, as for a line item.
    func decision(unit: String, bidder index: Int) -> Decision {
        Self.decision(byBidder[unit], index)
    }

    private static func decision(_ decisions: [Decision]?, _ index: Int) -> Decision {
        guard let decisions, decisions.indices.contains(index) else {
            return Decision(
                consent: .denied("the line item is not in the configuration in force"), servingMode: .limited)
        }
        return decisions[index]
    }
}
