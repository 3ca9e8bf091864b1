import SharedTypes
import TestSupport
import Testing

@testable import Consent

/// The decisions, as tables: one requirement judged under privacy states that differ by one
/// thing each, with the reason each denial gives. The strings are written bit by bit by the
/// tests' own encoder (`ConsentStrings`), not the decoder's.
struct ConsentPolicyTests {
    /// An identifier of vendor 755 needing consent for purpose 1, and consent or a legitimate
    /// interest for purposes 2 and 3 (the latter never allowed one).
    static let requirement = ConsentRequirement(
        vendorID: 755, purposes: [1], legitimateInterestPurposes: [2, 3], identifier: true)

    static func gdpr(_ tc: ConsentStrings.TC?) throws -> ConsentPolicy {
        try ConsentPolicy(
            PrivacyState(limitAdTracking: false, tcfConsent: tc?.string, gdprApplies: true), at: ConsentStrings.now)
    }

    static func tc(_ change: (inout ConsentStrings.TC) -> Void) -> ConsentStrings.TC {
        var tc = ConsentStrings.TC.consentingToEverything(vendor: 755)
        change(&tc)
        return tc
    }

    @Test func tcfDecisions() throws {
        let cases: [(String, ConsentStrings.TC?, String?)] = [
            ("everything consented", Self.tc { _ in }, nil),
            ("no purpose 1 consent", Self.tc { $0.purposeConsents.remove(1) }, "TCF: purpose 1 has no consent"),
            ("no vendor consent", Self.tc { $0.vendorConsents = [] }, "TCF: vendor 755 has no consent for purpose 1"),
            (
                "purpose 2 on a legitimate interest",
                Self.tc {
                    $0.purposeConsents.remove(2)
                    $0.vendorConsents = [755]
                }, nil
            ),
            (
                "purpose 3 cannot rest on one", Self.tc { $0.purposeConsents.remove(3) },
                "TCF: purpose 3 has no consent"
            ),
            (
                "restriction: not allowed", Self.tc { $0.restrictions = [(1, 0, [755])] },
                "TCF: the publisher does not allow vendor 755 purpose 1"
            ),
            (
                "restriction: consent required, only a legitimate interest",
                Self.tc {
                    $0.purposeConsents.remove(2)
                    $0.restrictions = [(2, 1, [755])]
                }, "TCF: purpose 2 has no consent"
            ),
            (
                "restriction: legitimate interest required, only consent",
                Self.tc {
                    $0.vendorLegitimateInterests = []
                    $0.restrictions = [(2, 2, [755])]
                }, "TCF: vendor 755 has no legitimate interest for purpose 2"
            ),
            ("a restriction on another vendor", Self.tc { $0.restrictions = [(1, 0, [756])] }, nil),
            (
                "policy version 2 (TCF v2.0, made before 2023-10-01)",
                Self.tc {
                    $0.policyVersion = 2
                    ($0.created, $0.lastUpdated) = (
                        TCFRules.policyVersion4Since - 86_400_000, TCFRules.policyVersion4Since - 86_400_000
                    )
                },
                "TCF: policy version 2 is below 4 (privacy.min_tcf_policy_version)"
            ),
            ("no TC string", nil, "TCF: the GDPR applies and no TC string is set"),
        ]
        for (name, tc, reason) in cases {
            #expect(try Self.gdpr(tc).decide(Self.requirement).reason == reason, "\(name)")
        }
        // A special feature needs its opt-in; without the GDPR, the TC string is not read.
        let precise = ConsentRequirement(vendorID: 755, specialFeatures: [1])
        #expect(
            try Self.gdpr(Self.tc { $0.specialFeatureOptins = [] }).decide(precise).reason
                == "TCF: no opt-in for special feature 1")
        let elsewhere = try ConsentPolicy(PrivacyState(limitAdTracking: false, gdprApplies: false), at: 0)
        #expect(elsewhere.decide(Self.requirement) == .allowed)
        // A stricter minimum, by configuration.
        var stricter = PrivacySettings()
        stricter.minimumTCFPolicyVersion = 5
        let strict = try ConsentPolicy(
            PrivacyState(limitAdTracking: false, tcfConsent: Self.tc { _ in }.string, gdprApplies: true),
            settings: stricter, at: ConsentStrings.now)
        #expect(
            strict.decide(Self.requirement).reason
                == "TCF: policy version 4 is below 5 (privacy.min_tcf_policy_version)")
    }

    @Test func usDecisionsDenyIdentifiersOnly() throws {
        let cases: [(String, PrivacyState, String?)] = [
            ("no opt-out", .init(limitAdTracking: false, gpp: ConsentStrings.usnat(), gppSid: [7]), nil),
            (
                "sale opt-out", .init(limitAdTracking: false, gpp: ConsentStrings.usnat(["SaleOptOut": 1])),
                "GPP usnat: SaleOptOut = 1 (the user opted out of sale)"
            ),
            (
                "sharing opt-out", .init(limitAdTracking: false, gpp: ConsentStrings.usnat(["SharingOptOut": 1])),
                "GPP usnat: SharingOptOut = 1 (the user opted out of sharing)"
            ),
            (
                "targeted advertising opt-out",
                .init(limitAdTracking: false, gpp: ConsentStrings.usnat(["TargetedAdvertisingOptOut": 1])),
                "GPP usnat: TargetedAdvertisingOptOut = 1 (the user opted out of targeted advertising)"
            ),
            (
                "GPC", .init(limitAdTracking: false, gpp: ConsentStrings.usnat(gpc: true)),
                "GPP usnat: Gpc = true (a Global Privacy Control signal)"
            ),
            ("GPC sub-section, not set", .init(limitAdTracking: false, gpp: ConsentStrings.usnat(gpc: false)), nil),
            (
                "MSPA service-provider mode",
                .init(limitAdTracking: false, gpp: ConsentStrings.usnat(["MspaServiceProviderMode": 1])),
                "GPP usnat: MspaServiceProviderMode = 1 (MSPA service-provider mode)"
            ),
            (
                "no opt-out notice of sale",
                .init(limitAdTracking: false, gpp: ConsentStrings.usnat(["SaleOptOutNotice": 2])),
                "GPP usnat: SaleOptOutNotice = 2 (no opt-out notice of sale was given)"
            ),
            (
                "a child's data",
                .init(limitAdTracking: false, gpp: ConsentStrings.usnat(["KnownChildSensitiveDataConsents": 1])),
                "GPP usnat: KnownChildSensitiveDataConsents = [1, 1, 1] (a known child, whose data an identifier may not rest on)"
            ),
            (
                "a section in force that the string lacks",
                .init(limitAdTracking: false, gpp: ConsentStrings.usnat(), gppSid: [8]),
                "GPP: section usca is in force (gpp_sid) but not in the string"
            ),
            ("US Privacy, no opt-out", .init(limitAdTracking: false, usPrivacy: "1YNN"), nil),
            (
                "US Privacy, opted out", .init(limitAdTracking: false, usPrivacy: "1YYN"),
                "US Privacy: the user opted out of sale"
            ),
            ("limit ad tracking", .init(limitAdTracking: true), "the user limits ad tracking"),
        ]
        // Outside the GDPR, purposes are not read and the US rules deny identifiers only.
        let contextual = ConsentRequirement(vendorID: 755, purposes: [1, 3])
        for (name, state, reason) in cases {
            let policy = try ConsentPolicy(state, at: ConsentStrings.now)
            #expect(policy.decide(Self.requirement).reason == reason, "\(name)")
            #expect(policy.decide(contextual) == .allowed, "\(name): not an identifier")
        }
        #expect(ConsentPolicy.unset.decide(Self.requirement).reason == "no privacy state has been set")
        #expect(ConsentPolicy.unset.decide(.none) == .allowed)
    }

    @Test func servingModesAsGoogleDefinesThem() throws {
        let personal = Self.tc { _ in }
        let contextual = Self.tc {
            $0.purposeConsents = [1, 2, 7, 9, 10]
            $0.purposeLegitimateInterests = []
        }
        let storageOnly = Self.tc {
            $0.purposeConsents = [1]
            $0.purposeLegitimateInterests = []
        }
        let nothing = Self.tc {
            $0.purposeConsents = []
            $0.purposeLegitimateInterests = []
        }
        #expect(try Self.gdpr(personal).servingMode(vendor: 755) == .personalized)
        #expect(try Self.gdpr(personal).servingMode(vendor: 756) == .limited, "another vendor has no consent")
        #expect(try Self.gdpr(personal).servingMode(vendor: nil) == .personalized)
        #expect(try Self.gdpr(contextual).servingMode(vendor: 755) == .nonPersonalized)
        #expect(try Self.gdpr(storageOnly).servingMode(vendor: 755) == .limited)
        #expect(try Self.gdpr(nothing).servingMode(vendor: 755) == .limited)
        #expect(try Self.gdpr(nil).servingMode(vendor: nil) == .limited)
        let us = { (state: PrivacyState) throws in
            try ConsentPolicy(state, at: ConsentStrings.now).servingMode(vendor: nil)
        }
        #expect(try us(PrivacyState(limitAdTracking: false)) == .personalized)
        #expect(
            try us(PrivacyState(limitAdTracking: false, gpp: ConsentStrings.usnat(["SaleOptOut": 1])))
                == .nonPersonalized)
        #expect(try us(PrivacyState(limitAdTracking: true)) == .nonPersonalized)
        #expect(ConsentPolicy.unset.servingMode(vendor: nil) == .nonPersonalized)
        // Limited ad tracking lowers personalised ads only: where the GDPR applies and nothing
        // is granted, the mode is limited still.
        let limitedTracking = { (tc: ConsentStrings.TC?) throws in
            try ConsentPolicy(
                PrivacyState(limitAdTracking: true, tcfConsent: tc?.string, gdprApplies: true), at: ConsentStrings.now
            ).servingMode(vendor: 755)
        }
        #expect(try limitedTracking(nil) == .limited)
        #expect(try limitedTracking(nothing) == .limited)
        #expect(try limitedTracking(personal) == .nonPersonalized)
    }

    @Test func anIdentifierNeedsPurposeOneAndNoneRestsOnALegitimateInterest() throws {
        let bare = ConsentRequirement(vendorID: 755, identifier: true)
        let noStorage = Self.tc { $0.purposeConsents.remove(1) }
        #expect(try Self.gdpr(noStorage).decide(bare).reason == "TCF: purpose 1 has no consent")
        #expect(try Self.gdpr(Self.tc { _ in }).decide(bare) == .allowed)
        // Declared as resting on a legitimate interest, purpose 1 still needs consent.
        let claimed = ConsentRequirement(vendorID: 755, legitimateInterestPurposes: [1])
        let interestOnly = Self.tc {
            $0.purposeConsents.remove(1)
            $0.purposeLegitimateInterests.insert(1)
        }
        #expect(try Self.gdpr(interestOnly).decide(claimed).reason == "TCF: purpose 1 has no consent")
    }

    @Test func theTestEncodersStringsDecodeAsWritten() throws {
        let tc = try TCString.decode(
            Self.tc {
                $0.restrictions = [(2, 1, [755, 9])]
                $0.policyVersion = 5
            }.string)
        #expect(tc.vendorConsents == [755] && tc.policyVersion == 5 && tc.purposeConsents == Array(1...11))
        #expect(tc.publisherRestrictions == [.init(purpose: 2, kind: .requireConsent, vendors: [9, 755])])
        let gpp = try GPPString.decode(ConsentStrings.usnat(["SaleOptOut": 1], gpc: true))
        #expect(gpp.sectionIDs == [7] && gpp.section(7)?.fields.int("SaleOptOut") == 1)
        #expect(gpp.section(7)?.fields["Gpc"] == .bool(true))
        #expect(try GPPString.sectionIDs(header: ConsentStrings.header(sections: [2, 6, 8])[...]) == [2, 6, 8])
    }
}
