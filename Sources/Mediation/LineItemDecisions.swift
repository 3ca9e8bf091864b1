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

    init(_ policy: ConsentPolicy, units: some Sequence<AdUnit>) {
        privacy = policy.state
        byUnit = Dictionary(
            units.map { unit in
                (
                    unit.id,
                    unit.waterfall.map { item in
                        Decision(
                            consent: policy.decide(item.consent),
                            servingMode: policy.servingMode(vendor: item.consent.vendorID))
                    }
                )
            }, uniquingKeysWith: { $1 })
    }

    /// The decision for line item `index` of `unit`; one the units did not have is denied.
    func decision(unit: String, item index: Int) -> Decision {
        guard let decisions = byUnit[unit], decisions.indices.contains(index) else {
            return Decision(
                consent: .denied("the line item is not in the configuration in force"), servingMode: .limited)
        }
        return decisions[index]
    }
}
