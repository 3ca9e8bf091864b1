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
        let identity = try context.requireApp()
        let app = identity.id
        let hasSource = await state.ads.hasAdvertisingIDSource
        // As a load decides it: the app's capability, a source, then its consent (zeros without).
        func advertisingID(_ consent: ConsentDecision) -> ConsentVerdict {
            guard identity.may(.advertisingID) else {
                return ConsentVerdict(
                    allowed: false, reason: "the app is not granted advertising_id: its loads carry none")
            }
            guard hasSource else {
                return ConsentVerdict(allowed: false, reason: "no advertising id source is configured (advertising_id)")
            }
            return ConsentVerdict(allowed: consent.isAllowed, reason: consent.reason)
        }
        let own = await state.privacy.state(of: app)
        let device = await state.privacy.state(of: nil)
        let inForce = own != nil ? "app" : device != nil ? "device" : "none"
        let adapters = await state.collector.consentDecisions(for: app).map {
            AdapterDecision(adapter: $0.adapter, allowed: $0.decision.isAllowed, reason: $0.decision.reason)
        }
        let units = await state.ads.privacyDecisions(for: app).map { unit in
            AdUnitDecisions(
                adUnit: unit.unit,
                advertisingID: advertisingID(unit.advertisingID),
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
