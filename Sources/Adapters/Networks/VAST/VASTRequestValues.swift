import Mediation
import SharedTypes
import VAST

extension VASTMacros.RequestValues {
    /// What an ad tag's macros say of `request`: the app the registry describes, the advertising
    /// id (withheld, `-2`, when the app may not have it or the serving is limited; zeros under
    /// limit-ad-tracking) and the privacy state; `-1` for what is not known. Only the ad tag the
    /// configuration names gets these: a wrapper's target, which a server chose, gets the
    /// generic macros alone.
    init(_ request: NetworkAdRequest) {
        self.init()
        let privacy = request.privacy
        let mayHaveID = request.app.map { $0.may(.advertisingID) } ?? true
        if request.servingMode == .limited || !mayHaveID {
            (ifa, ifaType) = (.withheld, .withheld)
        } else if let id = request.advertisingID {
            let sent = id.limitAdTracking || privacy?.limitAdTracking == true ? id.limited : id
            (ifa, ifaType) = (.text(sent.ifa), .text(sent.type.rawValue))
        }
        if let flag = request.advertisingID?.limitAdTracking ?? privacy?.limitAdTracking {
            limitAdTracking = .text(flag || privacy?.limitAdTracking == true ? "1" : "0")
        }
        let description = request.app?.description
        if let bundle = description?.bundle { appBundle = .text(bundle) }
        if let url = description?.storeURL { storeURL = .text(url) }
        guard let privacy else { return }
        regulations = .list(
            (privacy.gdprApplies == true ? ["gdpr"] : []) + (privacy.coppa == true ? ["coppa"] : []))
        if let consent = privacy.tcfConsent { gdprConsent = .text(consent) }
        if let gpp = privacy.gpp { gppString = .text(gpp) }
        if let sections = privacy.gppSid { gppSectionIDs = .list(sections.map(String.init)) }
    }
}
