import SharedTypes
import TestSupport
import Testing

@testable import Consent

/// Each US state section's rules (8-27), on strings the test encoder writes from the sections'
/// tables: for the section in force (`gpp_sid`), each opt-out, notice, consent, GPC and MSPA
/// mode it has denies identifiers and lowers the serving mode, naming the section and field;
/// a sensitive-data refusal lowers the mode alone; an all-clear section allows both.
struct GPPStateRuleTests {
    static let identifier = ConsentRequirement(vendorID: 755, identifier: true)

    static func policy(_ gpp: String, sid: [Int]?) throws -> ConsentPolicy {
        try ConsentPolicy(PrivacyState(limitAdTracking: false, gpp: gpp, gppSid: sid), at: ConsentStrings.now)
    }

    /// The denials every field of section `id` that is set against the user gives.
    static func denials(_ id: Int) -> [(String, [String: Int], gpc: Bool?, String)] {
        let names = Set((ConsentStrings.usStateFields[id] ?? []).map(\.0))
        var cases: [(String, [String: Int], gpc: Bool?, String)] = [
            ("sale", ["SaleOptOut": 1], nil, "SaleOptOut = 1 (the user opted out of sale)"),
            ("sale notice", ["SaleOptOutNotice": 2], nil, "SaleOptOutNotice = 2 (no opt-out notice of sale was given)"),
            (
                "an opt-in without its notice", ["SaleOptOutNotice": 0], nil,
                "SaleOptOut = 2, SaleOptOutNotice = 0 (an opt-in to sale without its notice)"
            ),
        ]
        if names.contains("TargetedAdvertisingOptOut") {
            cases.append(
                (
                    "targeted advertising", ["TargetedAdvertisingOptOut": 1], nil,
                    "TargetedAdvertisingOptOut = 1 (the user opted out of targeted advertising)"
                ))
        }
        if names.contains("SharingOptOut") {
            cases.append(("sharing", ["SharingOptOut": 1], nil, "SharingOptOut = 1 (the user opted out of sharing)"))
        }
        if names.contains("SharingNotice") {
            cases.append(
                ("sharing notice", ["SharingNotice": 2], nil, "SharingNotice = 2 (no sharing notice was given)"))
        }
        if names.contains("ProcessingNotice") {
            cases.append(
                (
                    "processing notice", ["ProcessingNotice": 2], nil,
                    "ProcessingNotice = 2 (no notice of the processing was given)"
                ))
        }
        if names.contains("KnownChildSensitiveDataConsents") {
            let count = ConsentStrings.usStateFields[id]?.first { $0.0 == "KnownChildSensitiveDataConsents" }?.1 ?? 1
            let shown = count == 1 ? "2" : "[2" + String(repeating: ", 0", count: count - 1) + "]"
            cases.append(
                (
                    "a known child, even with consent", ["KnownChildSensitiveDataConsents[1]": 2], nil,
                    "KnownChildSensitiveDataConsents = \(shown) (a known child, whose data an identifier may not rest on)"
                ))
        }
        if names.contains("MspaServiceProviderMode") {
            cases.append(
                (
                    "service-provider mode", ["MspaServiceProviderMode": 1], nil,
                    "MspaServiceProviderMode = 1 (MSPA service-provider mode)"
                ))
        } else {
            cases.append(("service-provider mode", ["MspaMode": 2], nil, "MspaMode = 2 (MSPA service-provider mode)"))
        }
        if ConsentStrings.usStatesWithGPC.contains(id) {
            cases.append(("GPC", [:], true, "Gpc = true (a Global Privacy Control signal)"))
        }
        return cases
    }

    @Test func eachStatesRulesDenyIdentifiersAndLowerTheServingModeNamingSectionAndField() throws {
        var checked = 0
        for id in 8...27 {
            let name = try #require(ConsentStrings.usNames[id])
            let gpc: Bool? = ConsentStrings.usStatesWithGPC.contains(id) ? false : nil
            let clear = try Self.policy(ConsentStrings.usState(id, gpc: gpc), sid: [id])
            #expect(clear.decide(Self.identifier) == .allowed, "\(name)")
            #expect(clear.servingMode(vendor: 755) == .personalized, "\(name)")
            for (label, fields, gpc, reason) in Self.denials(id) {
                let policy = try Self.policy(ConsentStrings.usState(id, fields, gpc: gpc), sid: [id])
                #expect(policy.decide(Self.identifier).reason == "GPP \(name): \(reason)", "\(name) \(label)")
                #expect(policy.servingMode(vendor: 755) == .nonPersonalized, "\(name) \(label)")
                #expect(policy.personalizationDenial(vendor: 755) == "GPP \(name): \(reason)", "\(name) \(label)")
                // Another section in force: this one's fields decide nothing.
                let elsewhere = try Self.policy(ConsentStrings.usState(id, fields, gpc: gpc), sid: [])
                #expect(elsewhere.decide(Self.identifier) == .allowed, "\(name) \(label), not in force")
                checked += 1
            }
        }
        #expect(checked == 152, "\(checked) denials checked")
    }

    /// Sensitive data a category of which the user refused: identifiers still go, personalised
    /// ads do not (25-27 carry it in their sub-section).
    @Test func aRefusedSensitiveCategoryLowersTheServingModeAlone() throws {
        for id in 8...27 where id != 24 {  // Maryland's section has no sensitive-data field.
            let name = try #require(ConsentStrings.usNames[id])
            let gpp =
                (25...27).contains(id)
                ? ConsentStrings.usState(id, sensitive: [0, 0, 1, 0, 0, 0, 0, 0])
                : ConsentStrings.usState(id, ["SensitiveDataProcessing[3]": 1])
            let policy = try Self.policy(gpp, sid: [id])
            #expect(policy.decide(Self.identifier) == .allowed, "\(name)")
            #expect(policy.servingMode(vendor: 755) == .nonPersonalized, "\(name)")
            #expect(
                policy.personalizationDenial(vendor: 755)
                    == "GPP \(name): SensitiveDataProcessing[3] = 1 (sensitive data of category 3 is opted out of, "
                    + "or has no consent)", "\(name)")
        }
        // A sensitive-data notice withheld, as Utah and Iowa name theirs.
        for (id, notice) in [(11, "SensitiveDataProcessingOptOutNotice"), (18, "SensitiveDataOptOutNotice")] {
            let policy = try Self.policy(ConsentStrings.usState(id, [notice: 2]), sid: [id])
            #expect(policy.decide(Self.identifier) == .allowed)
            #expect(
                policy.personalizationDenial(vendor: 755)?.hasSuffix(
                    "\(notice) = 2 (no notice of the use of sensitive data was given)") == true)
        }
    }

    /// The Texas example of the issue: the same bytes as a Virginia section deny alike.
    @Test func texasAndVirginiaDenyTheSameOptOutAlike() throws {
        let texas = try Self.policy(
            ConsentStrings.usState(16, ["TargetedAdvertisingOptOut": 1, "SaleOptOut": 1]), sid: [16])
        #expect(texas.decide(Self.identifier).reason == "GPP ustx: SaleOptOut = 1 (the user opted out of sale)")
        let virginia = try Self.policy(ConsentStrings.usState(9, ["TargetedAdvertisingOptOut": 1]), sid: [9])
        #expect(
            virginia.decide(Self.identifier).reason
                == "GPP usva: TargetedAdvertisingOptOut = 1 (the user opted out of targeted advertising)")
        // Without gpp_sid every US section of the string applies.
        #expect(
            try Self.policy(ConsentStrings.usState(16, ["TargetedAdvertisingOptOut": 1]), sid: nil).decide(
                Self.identifier
            ).reason
                == "GPP ustx: TargetedAdvertisingOptOut = 1 (the user opted out of targeted advertising)")
    }
}
