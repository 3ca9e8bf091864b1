/// The bit layout of a GPP US section (national or state): its fields in order, each a 2-bit
/// answer or a fixed list of them after the 6-bit version, and whether a GPC sub-section may
/// follow the core.
struct USSectionLayout: Sendable {
    enum Width: Sendable {
        /// One 2-bit answer.
        case answer
        /// `count` 2-bit answers.
        case answers(Int)
    }

    var fields: [(name: String, width: Width)]
    var hasGPC: Bool

    /// The layout of section `id` at `version`; nil for a version the specification does not
    /// define.
    static func layout(section id: Int, version: Int) -> USSectionLayout? {
        switch (id, version) {
        case (7, 1): return national(sensitive: 12, children: 2)
        case (7, 2): return national(sensitive: 16, children: 3)
        case (8, 1):
            return USSectionLayout(
                fields: [
                    ("SaleOptOutNotice", .answer), ("SharingOptOutNotice", .answer),
                    ("SensitiveDataLimitUseNotice", .answer), ("SaleOptOut", .answer), ("SharingOptOut", .answer),
                    ("SensitiveDataProcessing", .answers(9)), ("KnownChildSensitiveDataConsents", .answers(2)),
                    ("PersonalDataConsents", .answer),
                ] + mspa, hasGPC: true)
        case (9, 1):
            return USSectionLayout(
                fields: noticesAndOptOuts + [
                    ("SensitiveDataProcessing", .answers(8)), ("KnownChildSensitiveDataConsents", .answer),
                ] + mspa, hasGPC: false)
        case (10, 1):
            return USSectionLayout(
                fields: noticesAndOptOuts + [
                    ("SensitiveDataProcessing", .answers(7)), ("KnownChildSensitiveDataConsents", .answer),
                ] + mspa, hasGPC: true)
        case (11, 1):
            return USSectionLayout(
                fields: [
                    ("SharingNotice", .answer), ("SaleOptOutNotice", .answer),
                    ("TargetedAdvertisingOptOutNotice", .answer), ("SensitiveDataProcessingOptOutNotice", .answer),
                    ("SaleOptOut", .answer), ("TargetedAdvertisingOptOut", .answer),
                    ("SensitiveDataProcessing", .answers(8)), ("KnownChildSensitiveDataConsents", .answer),
                ] + mspa, hasGPC: false)
        case (12, 1):
            return USSectionLayout(
                fields: noticesAndOptOuts + [
                    ("SensitiveDataProcessing", .answers(8)), ("KnownChildSensitiveDataConsents", .answers(3)),
                ] + mspa, hasGPC: true)
        default: return nil
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
            ] + mspa, hasGPC: true)
    }

    /// The notices and opt-outs the Virginia, Colorado and Connecticut sections share.
    private static let noticesAndOptOuts: [(name: String, width: Width)] = [
        ("SharingNotice", .answer), ("SaleOptOutNotice", .answer), ("TargetedAdvertisingOptOutNotice", .answer),
        ("SaleOptOut", .answer), ("TargetedAdvertisingOptOut", .answer),
    ]

    /// The Multi-State Privacy Agreement fields that end every US section.
    private static let mspa: [(name: String, width: Width)] = [
        ("MspaCoveredTransaction", .answer), ("MspaOptOutOptionMode", .answer), ("MspaServiceProviderMode", .answer),
    ]
}
