import SharedTypes

/// The decisions of one privacy state: its strings decoded once, then asked for each adapter
/// and line item. Rules, in order:
/// - No state set: only what needs nothing runs.
/// - `limit_ad_tracking` denies every identifier.
/// - Where the GDPR applies (`gdpr_applies`): the TC string (`tcf_consent`, else GPP's
///   `tcfeuv2`) must be there, of policy version `minimumTCFPolicyVersion` or later and last
///   updated at most `privacy.max_consent_age_days` before `now`; a vendor absent from its
///   DisclosedVendors segment (when it has one) has no basis at all (TCF v2.3); each purpose
///   needs consent, or a legitimate interest where declared and allowed (never 1 or 3-6), with
///   the vendor's own consent or legitimate interest alike; an identifier needs purpose 1
///   whatever it declares; publisher restrictions apply; each special feature needs its
///   opt-in. Purpose-one treatment is not read: without purpose 1 consent, what needs it is
///   denied. A declared Google ATP id needs that provider's consent in `addtl_consent`.
/// - In the US: an opt-out of sale, sharing or targeted advertising, GPC, or the MSPA rules
///   Prebid applies, in any applicable US section of the GPP string (7-27, `USPrivacyRules`;
///   or `us_privacy` opted out of sale), denies identifiers and personalised ads; so does the
///   device's GPC signal (`gpc`); a sensitive-data rule denies personalised ads alone.
/// - The device's COPPA flag (`coppa`: directed to children) denies identifiers and
///   personalised ads.
public struct ConsentPolicy: Sendable {
    public let state: PrivacyState?
    public let decoded: DecodedConsent
    /// `privacy`'s rules: the minimum TCF policy version and the longest age of consent.
    public let settings: PrivacySettings
    /// When the decisions are made (epoch ms, the daemon's wall clock): a TC string's age is
    /// judged by it. `at(_:)` judges the same state at another time.
    public private(set) var now: Int64
    /// Why the US rules deny identifiers, when they do.
    public let usOptOut: String?
    /// Why they deny personalised ads (what denies identifiers, or a sensitive-data rule).
    public let usPersonalizationDenial: String?

    /// No privacy state at all: only what needs nothing runs.
    public static let unset = ConsentPolicy(state: nil, decoded: DecodedConsent(), settings: PrivacySettings(), at: 0)

    /// `privacy.min_tcf_policy_version`'s default: 4, TCF v2.2.
    public static let defaultMinimumTCFPolicyVersion = 4

    /// The decisions of `state` at `now`, its strings decoded and checked (`TCFRules`); throws
    /// for a string that cannot be decoded or breaks a rule.
    public init(_ state: PrivacyState?, settings: PrivacySettings = PrivacySettings(), at now: Int64)
        throws(ConsentStringError)
    {
        let decoded = try state.map { (state) throws(ConsentStringError) in try DecodedConsent(state, at: now) }
        self.init(state: state, decoded: decoded ?? DecodedConsent(), settings: settings, at: now)
    }

    public init(state: PrivacyState?, decoded: DecodedConsent, settings: PrivacySettings, at now: Int64) {
        self.state = state
        self.decoded = decoded
        self.settings = settings
        self.now = now
        let gpc = state?.gpc == true ? "GPC: the user sent a Global Privacy Control signal" : nil
        usOptOut = gpc ?? USPrivacyRules.optOut(decoded, applicable: state?.gppSid)
        usPersonalizationDenial = gpc ?? USPrivacyRules.personalization(decoded, applicable: state?.gppSid)
    }

    /// The same decisions judged at `now`: what a request at that time is served under.
    public func at(_ now: Int64) -> ConsentPolicy {
        var policy = self
        policy.now = now
        return policy
    }

    /// `privacy.min_tcf_policy_version` in force.
    public var minimumTCFPolicyVersion: Int { settings.minimumTCFPolicyVersion }

    public func decide(_ requirement: ConsentRequirement) -> ConsentDecision {
        guard requirement.needsConsent else { return .allowed }
        guard let state else { return .denied("no privacy state has been set") }
        if requirement.identifier, state.limitAdTracking { return .denied("the user limits ad tracking") }
        if requirement.identifier, state.coppa == true { return .denied("COPPA: the device is directed to children") }
        if state.gdprApplies == true, let reason = tcfDenial(requirement) { return .denied("TCF: \(reason)") }
        if state.gdprApplies == true, let provider = requirement.googleATPID,
            let reason = additionalConsentDenial(provider)
        {
            return .denied("Additional Consent: \(reason)")
        }
        if requirement.identifier, let usOptOut { return .denied(usOptOut) }
        return .allowed
    }

    /// The serving mode for an ad request to `vendor` (nil: purposes alone are checked): where
    /// the GDPR applies, what the TC string grants; limited ad tracking, a US opt-out (GPC
    /// included) and COPPA can only lower personalised to non-personalised.
    public func servingMode(vendor: Int?) -> ServingMode {
        guard let state else { return .nonPersonalized }
        let personalizationDenied = state.limitAdTracking || usPersonalizationDenial != nil || state.coppa == true
        guard state.gdprApplies == true else { return personalizationDenied ? .nonPersonalized : .personalized }
        if !personalizationDenied, tcfDenial(ServingMode.personalizedNeeds(vendor: vendor)) == nil {
            return .personalized
        }
        if tcfDenial(ServingMode.nonPersonalizedNeeds(vendor: vendor)) == nil { return .nonPersonalized }
        return .limited
    }

    /// The TC string in force: `tcf_consent`, else the GPP string's `tcfeuv2` section.
    public var tcString: TCString? { decoded.tcf ?? decoded.gpp?.section(2)?.tcf }

    /// Why TCF denies `requirement`; nil when it allows it.
    func tcfDenial(_ requirement: ConsentRequirement) -> String? {
        guard let tcf = tcString else { return "the GDPR applies and no TC string is set" }
        guard tcf.policyVersion >= minimumTCFPolicyVersion else {
            return
                "policy version \(tcf.policyVersion) is below \(minimumTCFPolicyVersion) (privacy.min_tcf_policy_version)"
        }
        if let expiry = tcfExpiry, now > expiry {
            return
                "the TC string expired: last updated \(TCFRules.day(tcf.lastUpdated)), more than \(settings.maxConsentAgeDays) days ago (privacy.max_consent_age_days)"
        }
        // TCF v2.3: a vendor not disclosed to the user has neither consent nor a legitimate interest.
        if let vendor = requirement.vendorID, let disclosed = tcf.disclosedVendors, !disclosed.contains(vendor) {
            return "vendor \(vendor) was not disclosed to the user (DisclosedVendors)"
        }
        for feature in requirement.specialFeatures.sorted() where !tcf.specialFeatureOptins.contains(feature) {
            return "no opt-in for special feature \(feature)"
        }
        // An identifier is read from or stored on the device: purpose 1, whatever it declares.
        let declared = Set(requirement.purposes).union(requirement.legitimateInterestPurposes)
        let purposes = (requirement.identifier ? declared.union([1]) : declared).sorted()
        for purpose in purposes {
            if let reason = purposeDenial(purpose, requirement, tcf) { return reason }
        }
        return nil
    }

    /// Why `purpose` has no basis for `requirement` under `tcf`; nil when it has one.
    private func purposeDenial(_ purpose: Int, _ requirement: ConsentRequirement, _ tcf: TCString) -> String? {
        var consentAllowed = true
        // TCF v2.2: never a legitimate interest for purpose 1 (storage) nor 3-6 (personalisation).
        var interestAllowed =
            requirement.legitimateInterestPurposes.contains(purpose) && !requirement.purposes.contains(purpose)
            && !(3...6).contains(purpose) && purpose != 1
        let vendor = requirement.vendorID
        if let vendor {
            for restriction in tcf.publisherRestrictions
            where restriction.purpose == purpose && restriction.vendors.contains(vendor) {
                switch restriction.kind {
                case .notAllowed: return "the publisher does not allow vendor \(vendor) purpose \(purpose)"
                case .requireConsent: interestAllowed = false
                case .requireLegitimateInterest: consentAllowed = false
                }
            }
        }
        let consent =
            consentAllowed && tcf.purposeConsents.contains(purpose)
            && vendor.map { tcf.vendorConsents.contains($0) } ?? true
        let interest =
            interestAllowed && tcf.purposeLegitimateInterests.contains(purpose)
            && vendor.map { tcf.vendorLegitimateInterests.contains($0) } ?? true
        guard !consent, !interest else { return nil }
        let basis = [consentAllowed ? "consent" : nil, interestAllowed ? "legitimate interest" : nil]
            .compactMap { $0 }.joined(separator: " or ")
        guard !basis.isEmpty else {
            return "the publisher requires a legitimate interest for purpose \(purpose), which it cannot have"
        }
        let purposeHasBasis =
            (consentAllowed && tcf.purposeConsents.contains(purpose))
            || (interestAllowed && tcf.purposeLegitimateInterests.contains(purpose))
        if let vendor, purposeHasBasis { return "vendor \(vendor) has no \(basis) for purpose \(purpose)" }
        return "purpose \(purpose) has no \(basis)"
    }
}
