/// The US rules for identifiers and personalised ads, read from each applicable US section of
/// the GPP string (7-27) under its own field names, and from a US Privacy string:
/// - identifiers: the MSPA checks Prebid applies (Prebid.js `libraries/mspa/activityControls.ts`,
///   `isConsentDenied`, which gates user syncs and ids), each on whichever of its fields a section
///   has: a field a section does not have never denies, as in Prebid's mapping of the states onto
///   `usnat` (`modules/gppControl_usstates.ts`). Sections 13-27 postdate Prebid's mapping; their
///   fields of the same name are read alike, `MspaMode = 2` (24-27) is service-provider mode,
///   and `ProcessingNotice = 2` denies as Prebid's `SharingNotice = 2` does. An opt-out of sale
///   in a US Privacy string denies too.
/// - personalised ads also need, on the daemon's own reading (stricter than Prebid's
///   `isTransmitUfpdConsentDenied`, which it is modelled on: every category alike, precise
///   geolocation included, by the section's own index), no sensitive-data notice withheld and
///   no category opted out of or refused.
/// Every reason names the section and the field: "GPP ustx: TargetedAdvertisingOptOut = 1 (...)".
enum USPrivacyRules {
    /// Why the US strings of `decoded` deny identifiers, if they do. `applicable`: the GPP
    /// section ids in force (`gpp_sid`); without it, every US section of the string applies.
    static func optOut(_ decoded: DecodedConsent, applicable: [Int]?) -> String? {
        firstDenial(decoded, applicable) { section in denial(section.fields, national: section.id == 7) }
    }

    /// Why they deny personalised ads: what denies identifiers, or a sensitive-data rule.
    static func personalization(_ decoded: DecodedConsent, applicable: [Int]?) -> String? {
        firstDenial(decoded, applicable) { section in
            denial(section.fields, national: section.id == 7) ?? sensitiveDenial(section.fields)
        }
    }

    /// The first denial `rule` finds in an applicable section, named "GPP <section>: ...".
    private static func firstDenial(
        _ decoded: DecodedConsent, _ applicable: [Int]?, _ rule: (GPPSection) -> String?
    ) -> String? {
        if decoded.usPrivacy?.optOutSale == .yes { return "US Privacy: the user opted out of sale" }
        guard let gpp = decoded.gpp else { return nil }
        let ids =
            applicable.map { $0.filter { $0 == 6 || GPPSection.usSections.contains($0) } }
            ?? gpp.sections.filter { $0.id == 6 || $0.isUS }.map(\.id)
        for id in ids {
            guard let section = gpp.section(id) else {
                return "GPP: section \(GPPSection.names[id] ?? String(id)) is in force (gpp_sid) but not in the string"
            }
            if section.usPrivacy?.optOutSale == .yes { return "GPP uspv1: the user opted out of sale" }
            if section.isUS, let reason = rule(section) { return "GPP \(section.name ?? String(id)): \(reason)" }
        }
        return nil
    }

    /// Prebid's `isConsentDenied` on one section's fields (0 not applicable, 1 yes or opted
    /// out, 2 no); `national`: `usnat`, whose known-child consents are read by age group, where
    /// a state's deny on any non-zero one (Prebid's mapping of them).
    static func denial(_ fields: [ConsentField], national: Bool) -> String? {
        func value(_ name: String) -> Int? { fields.int(name) }
        if value("MspaServiceProviderMode") == 1 { return "MspaServiceProviderMode = 1 (MSPA service-provider mode)" }
        if value("MspaMode") == 2 { return "MspaMode = 2 (MSPA service-provider mode)" }
        if fields["Gpc"] == .bool(true) { return "Gpc = true (a Global Privacy Control signal)" }
        if value("PersonalDataConsents") == 2 {
            return "PersonalDataConsents = 2 (a consent the MSPA does not recognise)"
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
        if childDenied {
            let shown = children.count == 1 ? "\(children[0])" : "\(children)"
            return
                "KnownChildSensitiveDataConsents = \(shown) (a known child, whose data an identifier may not rest on)"
        }
        if value("MspaCoveredTransaction") == 0 {
            return "MspaCoveredTransaction = 0 (a value the MSPA does not define)"
        }
        for (activity, name) in [
            ("Sale", "sale"), ("Sharing", "sharing"), ("TargetedAdvertising", "targeted advertising"),
        ] {
            let optOut = value("\(activity)OptOut")
            let notice = value("\(activity)OptOutNotice")
            if optOut == 1 { return "\(activity)OptOut = 1 (the user opted out of \(name))" }
            if notice == 2 { return "\(activity)OptOutNotice = 2 (no opt-out notice of \(name) was given)" }
            if optOut == 2, notice == 0 {
                return "\(activity)OptOut = 2, \(activity)OptOutNotice = 0 (an opt-in to \(name) without its notice)"
            }
        }
        if value("SharingNotice") == 2 { return "SharingNotice = 2 (no sharing notice was given)" }
        if value("ProcessingNotice") == 2 { return "ProcessingNotice = 2 (no notice of the processing was given)" }
        if value("SharingOptOut") == 2, value("SharingNotice") == 0 {
            return "SharingOptOut = 2, SharingNotice = 0 (an opt-in to sharing without its notice)"
        }
        return nil
    }

    /// The sensitive data personalised ads would carry: a sensitive-data notice not given, or a
    /// category the user opted out of (usnat) or gave no consent for (the states), is a denial.
    static func sensitiveDenial(_ fields: [ConsentField]) -> String? {
        for notice in [
            "SensitiveDataProcessingOptOutNotice", "SensitiveDataLimitUseNotice", "SensitiveDataOptOutNotice",
        ]
        where fields.int(notice) == 2 {
            return "\(notice) = 2 (no notice of the use of sensitive data was given)"
        }
        guard case .list(let categories) = fields["SensitiveDataProcessing"],
            let index = categories.firstIndex(of: 1)
        else { return nil }
        return "SensitiveDataProcessing[\(index + 1)] = 1 (sensitive data of category \(index + 1) is opted out of, "
            + "or has no consent)"
    }
}
