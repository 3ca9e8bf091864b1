import API
import Consent
import Hummingbird
import Mediation
import SharedTypes

extension SignalRoutes {
    /// What the calling app's state in force lets each adapter, line item and bidder do now:
    /// the collector's and the ad store's own decisions, read as a request would meet them.
    @Sendable func privacyDecisions(_ request: Request, context: DaemonRequestContext) async throws
        -> some ResponseGenerator
    {
        let app = try context.requireApp().id
        let own = await state.privacy.state(of: app)
        let device = await state.privacy.state(of: nil)
        let inForce = own != nil ? "app" : device != nil ? "device" : "none"
        let adapters = await state.collector.consentDecisions(for: app).map {
            AdapterDecision(adapter: $0.adapter, allowed: $0.decision.isAllowed, reason: $0.decision.reason)
        }
        let units = await state.ads.privacyDecisions(for: app).map { unit in
            AdUnitDecisions(
                adUnit: unit.unit,
                advertisingID: ConsentVerdict(allowed: unit.advertisingID.isAllowed, reason: unit.advertisingID.reason),
                lineItems: unit.waterfall.map(Self.answer), bidders: unit.bidders.map(Self.answer))
        }
        return PrivacyDecisions(app: app, stateInForce: inForce, adapters: adapters, adUnits: units)
    }

    private static func answer(_ item: UnitPrivacyDecisions.Item) -> LineItemDecision {
        LineItemDecision(
            network: item.network, parameter: item.parameter, allowed: item.consent.isAllowed,
            reason: item.consent.reason, servingMode: item.servingMode, servingModeReason: item.personalizationDenial)
    }
}
