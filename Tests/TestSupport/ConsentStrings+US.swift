/// GPP strings of one US state section (8-27), written from each section's GPP specification
/// table independently of the daemon's decoder: every notice given, no opt-out, no sensitive
/// data, no known child, not an MSPA covered transaction; `fields` overrides any by name (a
/// list field's every entry, or `"SensitiveDataProcessing[3]"` one entry).
extension ConsentStrings {
    /// Each section's core after its 6-bit version, in order: name and how many 2-bit answers.
    public static let usStateFields: [Int: [(String, Int)]] = {
        let mspa = [("MspaCoveredTransaction", 1), ("MspaOptOutOptionMode", 1), ("MspaServiceProviderMode", 1)]
        let optOuts = [
            ("SaleOptOutNotice", 1), ("TargetedAdvertisingOptOutNotice", 1), ("SaleOptOut", 1),
            ("TargetedAdvertisingOptOut", 1),
        ]
        func common(_ notice: String, _ sensitive: Int, _ children: Int, additional: Bool = true) -> [(String, Int)] {
            [(notice, 1)] + optOuts + [
                ("SensitiveDataProcessing", sensitive), ("KnownChildSensitiveDataConsents", children),
            ]
                + (additional ? [("AdditionalDataProcessingConsent", 1)] : []) + mspa
        }
        let late = [("MspaCoveredTransaction", 1), ("MspaMode", 1), ("ProcessingNotice", 1)] + optOuts
        return [
            8: [
                ("SaleOptOutNotice", 1), ("SharingOptOutNotice", 1), ("SensitiveDataLimitUseNotice", 1),
                ("SaleOptOut", 1), ("SharingOptOut", 1), ("SensitiveDataProcessing", 9),
                ("KnownChildSensitiveDataConsents", 2), ("PersonalDataConsents", 1),
            ] + mspa,
            9: common("SharingNotice", 8, 1, additional: false),
            10: common("SharingNotice", 7, 1, additional: false),
            11: [
                ("SharingNotice", 1), ("SaleOptOutNotice", 1), ("TargetedAdvertisingOptOutNotice", 1),
                ("SensitiveDataProcessingOptOutNotice", 1), ("SaleOptOut", 1), ("TargetedAdvertisingOptOut", 1),
                ("SensitiveDataProcessing", 8), ("KnownChildSensitiveDataConsents", 1),
            ] + mspa,
            12: common("SharingNotice", 8, 3, additional: false),
            13: common("ProcessingNotice", 8, 3), 14: common("SharingNotice", 8, 3),
            15: common("ProcessingNotice", 11, 3), 16: common("ProcessingNotice", 8, 1),
            17: common("ProcessingNotice", 9, 5),
            18: [
                ("ProcessingNotice", 1), ("SaleOptOutNotice", 1), ("TargetedAdvertisingOptOutNotice", 1),
                ("SensitiveDataOptOutNotice", 1), ("SaleOptOut", 1), ("TargetedAdvertisingOptOut", 1),
                ("SensitiveDataProcessing", 8), ("KnownChildSensitiveDataConsents", 1),
            ] + mspa,
            19: common("ProcessingNotice", 8, 1), 20: common("ProcessingNotice", 8, 3),
            21: common("ProcessingNotice", 10, 5), 22: common("ProcessingNotice", 8, 1),
            23: common("ProcessingNotice", 8, 1),
            24: late + [("AdditionalDataProcessingConsent", 1)],
            25: late + [("KnownChildSensitiveDataConsents", 1), ("AdditionalDataProcessingConsent", 1)],
            26: late + [("KnownChildSensitiveDataConsents", 1), ("AdditionalDataProcessingConsent", 1)],
            27: late + [("KnownChildSensitiveDataConsents", 1), ("AdditionalDataProcessingConsent", 1)],
        ]
    }()

    /// The sections with a GPC sub-section.
    public static let usStatesWithGPC: Set<Int> = [8, 10, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]

    /// The API name of each US section.
    public static let usNames: [Int: String] = [
        7: "usnat", 8: "usca", 9: "usva", 10: "usco", 11: "usut", 12: "usct", 13: "usfl", 14: "usmt", 15: "usor",
        16: "ustx", 17: "usde", 18: "usia", 19: "usne", 20: "usnh", 21: "usnj", 22: "ustn", 23: "usmn",
        24: "usmd", 25: "usin", 26: "usky", 27: "usri",
    ]

    /// A notice given (1), no opt-out (2), a transaction not covered (2), else not applicable.
    private static func defaultAnswer(_ name: String) -> Int {
        if name.hasSuffix("Notice") { return 1 }
        return name.hasSuffix("OptOut") || name == "MspaCoveredTransaction" ? 2 : 0
    }

    /// A GPP string of state section `id` alone. `gpc`: its GPC sub-section (where it has
    /// one); `sensitive`: the sensitive-data sub-section of 25-27 (8 answers); `sectionHeader`:
    /// 24-27 in the published text's form, a section header segment before the core.
    public static func usState(
        _ id: Int, _ fields: [String: Int] = [:], gpc: Bool? = nil, sensitive: [Int]? = nil,
        sectionHeader: Bool = false
    ) -> String {
        var core = Bits()
        core.int(1, 6)
        for (name, count) in usStateFields[id] ?? [] {
            let value = fields[name] ?? defaultAnswer(name)
            for index in 1...count { core.int(fields["\(name)[\(index)]"] ?? value, 2) }
        }
        var segments = [core.base64url]
        if let gpc {
            var sub = Bits()
            sub.int(1, 2)
            sub.int(gpc ? 1 : 0, 1)
            segments.append(sub.base64url)
        }
        if let sensitive {
            var sub = Bits()
            for value in sensitive { sub.int(value, 2) }
            segments.append(sub.base64url)
        }
        if sectionHeader {
            var header = Bits()
            header.int(id, 6)
            header.int(1, 6)
            header.int(segments.count - 1, 12)
            if segments.count > 1 {
                header.int(0, 1)
                header.fibonacci(1)
            }
            segments.insert(header.base64url, at: 0)
        }
        return header(sections: [id]) + "~" + segments.joined(separator: ".")
    }
}
