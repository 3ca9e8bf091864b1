import Consent
import SharedTypes

/// What an app's privacy state in force lets one ad unit do: whether its loads may carry the
/// advertising id, and each line item's and bidder's decision and serving mode, as a load made
/// now would meet them (`GET /v1/privacy/decisions`).
@MemberwiseInit
public struct UnitPrivacyDecisions: Sendable, Equatable {
    /// One line item or bidder: its network, its parameter as answers show it, whether it may
    /// be asked (and why not), the serving mode of its requests and why they are not personalised.
    @MemberwiseInit
    public struct Item: Sendable, Equatable {
        public var network: String
        public var parameter: String
        public var consent: ConsentDecision
        public var servingMode: ServingMode
        public var personalizationDenial: String?
    }

    public var unit: String
    public var advertisingID: ConsentDecision
    public var waterfall: [Item]
    public var bidders: [Item]
}

extension AdStore {
    /// Whether a source of the device's advertising id is configured: without one, no load
    /// carries an id, whatever an app may.
    public var hasAdvertisingIDSource: Bool { services.advertisingIDs != nil }

    /// Every unit's decisions for app `id` (nil: under the device's state), by unit id: those
    /// of `LineItemDecisions`, which every load is made under.
    public func privacyDecisions(for id: String?) -> [UnitPrivacyDecisions] {
        let policy = policies.policy(for: id, at: wallClock.nowMilliseconds)
        return units.values.sorted { $0.id < $1.id }.map { unit in
            let decisions = LineItemDecisions(policy, units: [unit])
            func item(_ line: LineItem, _ decision: LineItemDecisions.Decision) -> UnitPrivacyDecisions.Item {
                UnitPrivacyDecisions.Item(
                    network: line.network, parameter: line.shownParameter, consent: decision.consent,
                    servingMode: decision.servingMode,
                    personalizationDenial: decision.servingMode == .personalized
                        ? nil : policy.personalizationDenial(vendor: line.consent.vendorID))
            }
            return UnitPrivacyDecisions(
                unit: unit.id, advertisingID: policy.decide(ConsentRequirement(identifier: true)),
                waterfall: unit.waterfall.enumerated().map {
                    item($0.element, decisions.decision(unit: unit.id, item: $0.offset))
                },
                bidders: unit.bidders.enumerated().map {
                    item($0.element, decisions.decision(unit: unit.id, bidder: $0.offset))
                })
        }
    }
}
