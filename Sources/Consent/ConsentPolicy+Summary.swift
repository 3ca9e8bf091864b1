import SharedTypes

extension ConsentPolicy {
    /// What a trace says of the state: which signals are present and the serving mode, never
    /// a string itself.
    public var summary: PrivacySummary {
        PrivacySummary(
            set: state != nil, gdprApplies: state?.gdprApplies, tcf: state?.tcfConsent != nil,
            gppSections: state?.gppSid ?? [], usPrivacy: state?.usPrivacy != nil,
            limitAdTracking: state?.limitAdTracking ?? false, gpc: state?.gpc ?? false, coppa: state?.coppa ?? false,
            servingMode: servingMode(vendor: nil))
    }
}
