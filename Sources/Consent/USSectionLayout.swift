/// The bit layout of a GPP US section (national or state), 7 to 27: the 6-bit version field
/// that opens its core, the core's fields in order (each a 2-bit answer or a fixed list of
/// them), and the one optional sub-section that may follow it. Written from each section's
/// GPP specification; where the published text of 24-27 differs from the reference
/// implementation (iabgpp-es), this is the reference implementation's core (see `USSection`).
struct USSectionLayout: Sendable {
    enum Width: Sendable {
        /// One 2-bit answer.
        case answer
        /// `count` 2-bit answers.
        case answers(Int)
    }

    /// What may follow the core, '.'-separated.
    enum Subsection: Sendable, Equatable {
        /// `SubsectionType` (2 bits, 1) and `Gpc` (1 bit).
        case gpc
        /// `SensitiveDataProcessing` (24-27: consents moved out of the core).
        case sensitiveData(Int)
    }

    typealias Fields = [(name: String, width: Width)]

    /// `Version`, or `MspaVersion` in 24-27, whose core opens with it.
    var versionField = "Version"
    var fields: Fields
    var subsection: Subsection?

    /// The layout of section `id` at `version`; nil for a version the specification does not
    /// define.
    static func layout(section id: Int, version: Int) -> USSectionLayout? {
        switch (id, version) {
        case (7, 1): national(sensitive: 12, children: 2)
        case (7, 2): national(sensitive: 16, children: 3)
        case (8...27, 1): state(id)
        default: nil
        }
    }

    /// usnat: its version 2 widened the sensitive-data and known-child lists.
    private static func national(sensitive: Int, children: Int) -> USSectionLayout {
        USSectionLayout(
            fields: [
                ("SharingNotice", .answer), ("SaleOptOutNotice", .answer), ("SharingOptOutNotice", .answer),
                ("TargetedAdvertisingOptOutNotice", .answer), ("SensitiveDataProcessingOptOutNotice", .answer),
                ("SensitiveDataLimitUseNotice", .answer), ("SaleOptOut", .answer), ("SharingOptOut", .answer),
                ("TargetedAdvertisingOptOut", .answer), ("SensitiveDataProcessing", .answers(sensitive)),
                ("KnownChildSensitiveDataConsents", .answers(children)), ("PersonalDataConsents", .answer),
            ] + mspa, subsection: .gpc)
    }

    /// The state sections, version 1 of each.
    private static func state(_ id: Int) -> USSectionLayout? {
        let gpc = USSectionLayout.Subsection.gpc
        switch id {
        case 8:
            return USSectionLayout(
                fields: [
                    ("SaleOptOutNotice", .answer), ("SharingOptOutNotice", .answer),
                    ("SensitiveDataLimitUseNotice", .answer), ("SaleOptOut", .answer), ("SharingOptOut", .answer),
                    ("SensitiveDataProcessing", .answers(9)), ("KnownChildSensitiveDataConsents", .answers(2)),
                    ("PersonalDataConsents", .answer),
                ] + mspa, subsection: gpc)
        case 9: return common("SharingNotice", sensitive: 8, children: .answer, additional: false, nil)
        case 10: return common("SharingNotice", sensitive: 7, children: .answer, additional: false, gpc)
        case 11:
            return USSectionLayout(
                fields: [
                    ("SharingNotice", .answer), ("SaleOptOutNotice", .answer),
                    ("TargetedAdvertisingOptOutNotice", .answer), ("SensitiveDataProcessingOptOutNotice", .answer),
                    ("SaleOptOut", .answer), ("TargetedAdvertisingOptOut", .answer),
                    ("SensitiveDataProcessing", .answers(8)), ("KnownChildSensitiveDataConsents", .answer),
                ] + mspa, subsection: nil)
        case 12: return common("SharingNotice", sensitive: 8, children: .answers(3), additional: false, gpc)
        case 13: return common("ProcessingNotice", sensitive: 8, children: .answers(3), additional: true, nil)
        case 14: return common("SharingNotice", sensitive: 8, children: .answers(3), additional: true, gpc)
        case 15: return common("ProcessingNotice", sensitive: 11, children: .answers(3), additional: true, gpc)
        case 16, 19, 22, 23:
            return common("ProcessingNotice", sensitive: 8, children: .answer, additional: true, gpc)
        case 17: return common("ProcessingNotice", sensitive: 9, children: .answers(5), additional: true, gpc)
        case 18:
            return USSectionLayout(
                fields: [
                    ("ProcessingNotice", .answer), ("SaleOptOutNotice", .answer),
                    ("TargetedAdvertisingOptOutNotice", .answer), ("SensitiveDataOptOutNotice", .answer),
                    ("SaleOptOut", .answer), ("TargetedAdvertisingOptOut", .answer),
                    ("SensitiveDataProcessing", .answers(8)), ("KnownChildSensitiveDataConsents", .answer),
                ] + mspa, subsection: gpc)
        case 20: return common("ProcessingNotice", sensitive: 8, children: .answers(3), additional: true, gpc)
        case 21: return common("ProcessingNotice", sensitive: 10, children: .answers(5), additional: true, gpc)
        case 24: return mspaFirst(children: false, subsection: gpc)
        case 25, 26, 27: return mspaFirst(children: true, subsection: .sensitiveData(8))
        default: return nil
        }
    }

    /// The shape most state sections share: a notice (`SharingNotice` or `ProcessingNotice`),
    /// the sale and targeted-advertising notices and opt-outs, the sensitive-data and
    /// known-child consents, `AdditionalDataProcessingConsent` (13 on), then the MSPA fields.
    private static func common(
        _ notice: String, sensitive: Int, children: Width, additional: Bool, _ subsection: Subsection?
    ) -> USSectionLayout {
        let consents: Fields = [
            ("SensitiveDataProcessing", .answers(sensitive)), ("KnownChildSensitiveDataConsents", children),
        ]
        return USSectionLayout(
            fields: [(notice, .answer)] + optOuts + consents
                + (additional ? [("AdditionalDataProcessingConsent", .answer)] : []) + mspa,
            subsection: subsection)
    }

    /// 24-27: the MSPA's version, covered transaction and mode first, then the notices and
    /// opt-outs (the sensitive-data consents of 25-27 in their sub-section).
    private static func mspaFirst(children: Bool, subsection: Subsection) -> USSectionLayout {
        USSectionLayout(
            versionField: "MspaVersion",
            fields: [("MspaCoveredTransaction", .answer), ("MspaMode", .answer), ("ProcessingNotice", .answer)]
                + optOuts + (children ? [("KnownChildSensitiveDataConsents", .answer)] : [])
                + [("AdditionalDataProcessingConsent", .answer)],
            subsection: subsection)
    }

    /// The sale and targeted-advertising notices, then their opt-outs.
    private static let optOuts: Fields = [
        ("SaleOptOutNotice", .answer), ("TargetedAdvertisingOptOutNotice", .answer), ("SaleOptOut", .answer),
        ("TargetedAdvertisingOptOut", .answer),
    ]

    /// The Multi-State Privacy Agreement fields that end the sections 7-23.
    private static let mspa: Fields = [
        ("MspaCoveredTransaction", .answer), ("MspaOptOutOptionMode", .answer), ("MspaServiceProviderMode", .answer),
    ]
}
