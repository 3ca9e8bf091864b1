/// The US rules for identifiers and personalised ads: the MSPA checks Prebid applies to a GPP
/// US section (Prebid.js `libraries/mspa/activityControls.ts`, `isConsentDenied`, which gates
/// user syncs and ids), and an opt-out of sale in a US Privacy string. A state section keeps
/// the national section's field names, so one rule reads both; a field a state does not have
/// never denies, as in Prebid's mapping onto `usnat`.
enum USPrivacyRules {
    /// Why the US strings of `decoded` deny identifiers, if they do. `applicable`: the GPP
    /// section ids in force (`gpp_sid`); without it, every US section of the string applies.
    static func optOut(_ decoded: DecodedConsent, applicable: [Int]?) -> String? {
        if decoded.usPrivacy?.optOutSale == .yes { return "US Privacy: the user opted out of sale" }
        guard let gpp = decoded.gpp else { return nil }
        let ids =
            applicable.map { $0.filter { $0 == 6 || (7...12).contains($0) } }
            ?? gpp.sections.filter { $0.id == 6 || $0.isUS }.map(\.id)
        for id in ids {
            guard let section = gpp.section(id) else {
                return "GPP: section \(GPPSection.names[id] ?? String(id)) is in force (gpp_sid) but not in the string"
            }
            if section.usPrivacy?.optOutSale == .yes { return "GPP uspv1: the user opted out of sale" }
            if section.isUS, let reason = denial(section.fields, national: id == 7) {
                return "GPP \(section.name ?? String(id)): \(reason)"
            }
        }
        return nil
    }

    /// Prebid's `isConsentDenied` on one section's fields (0 not applicable, 1 yes or opted
    /// out, 2 no); `national`: `usnat`, whose known-child consents are read by age group, where
    /// a state's deny on any non-zero one (Prebid's mapping of them).
    static func denial(_ fields: [ConsentField], national: Bool) -> String? {
        func value(_ name: String) -> Int? { fields.int(name) }
        if value("MspaServiceProviderMode") == 1 { return "MSPA service-provider mode (MspaServiceProviderMode = 1)" }
        if fields["Gpc"] == .bool(true) { return "Global Privacy Control is set (Gpc)" }
        if value("PersonalDataConsents") == 2 {
            return "PersonalDataConsents = 2, a consent the MSPA does not recognise"
        }
        let children: [Int] =
            switch fields["KnownChildSensitiveDataConsents"] {
            case .list(let values): values
            case .int(let value): [value]
            default: []
            }
        let childDenied =
            national
            ? children.first == 1 || (children.count > 1 && children[1] != 0)
                || (children.count > 2 && children[2] == 1)
            : children.contains { $0 != 0 }
        if childDenied { return "known-child sensitive data consents (KnownChildSensitiveDataConsents)" }
        if value("MspaCoveredTransaction") == 0 { return "MspaCoveredTransaction = 0" }
        for (activity, name) in [
            ("Sale", "sale"), ("Sharing", "sharing"), ("TargetedAdvertising", "targeted advertising"),
        ] {
            let optOut = value("\(activity)OptOut")
            let notice = value("\(activity)OptOutNotice")
            if optOut == 1 { return "the user opted out of \(name) (\(activity)OptOut = 1)" }
            if notice == 2 { return "no opt-out notice of \(name) was given (\(activity)OptOutNotice = 2)" }
            if optOut == 2, notice == 0 {
                return
                    "an opt-in to \(name) without its opt-out notice (\(activity)OptOut = 2, \(activity)OptOutNotice = 0)"
            }
        }
        if value("SharingNotice") == 2 { return "no sharing notice was given (SharingNotice = 2)" }
        if value("SharingOptOut") == 2, value("SharingNotice") == 0 {
            return "an opt-in to sharing without its notice (SharingOptOut = 2, SharingNotice = 0)"
        }
        return nil
    }
}
