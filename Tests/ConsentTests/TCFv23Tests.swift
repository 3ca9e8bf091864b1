import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Consent

/// TCF v2.3 and the age of consent: the v2.3 vectors decoded field by field and gated on
/// disclosure (`Tests/Fixtures/consent/2026/tcf-v23.json`), each rule of `TCFRules` refusing a
/// string written by the tests' own encoder, and a string's age judged at the time asked.
struct TCFv23Tests {
    static let day: Int64 = 86_400_000

    static func tc(_ change: (inout ConsentStrings.TC) -> Void = { _ in }) -> ConsentStrings.TC {
        var tc = ConsentStrings.TC.consentingToEverything(vendor: 755)
        change(&tc)
        return tc
    }

    static func state(_ tc: ConsentStrings.TC) -> PrivacyState {
        PrivacyState(limitAdTracking: false, tcfConsent: tc.string, gdprApplies: true)
    }

    /// Every case, valid or uncertain, decodes to the values its references decoded (fields
    /// absent from a string without the segment that holds them are expected empty).
    @Test func everyV23VectorDecodesFieldByFieldAndGatesOnDisclosure() throws {
        let cases =
            try ConsentVectorTests.cases("2026/tcf-v23.json", "valid")
            + ConsentVectorTests.cases("2026/tcf-v23.json", "uncertain")
        #expect(cases.count == 4)
        var checked = 0
        for vector in cases {
            guard case .string(let id) = vector["id"], case .string(let text) = vector["tc_string"],
                case .object(let expect) = vector["expect"], case .object(let gating) = vector["v23_gating"]
            else {
                Issue.record("a case without id, tc_string, expect or v23_gating")
                continue
            }
            let tc = try TCString.decode(text)
            let fields = tc.gppFields.json
            for (name, expected) in expect {
                let actual = fields[name] ?? (expected == .array([]) ? .array([]) : nil)
                #expect(actual == expected, "\(id) \(name)")
                checked += 1
            }
            // R-gating: a vendor's consent and legitimate interest count only if it was disclosed.
            let vendors = Set(tc.vendorConsents + tc.vendorLegitimateInterests + (tc.disclosedVendors ?? []))
            for vendor in vendors.sorted() {
                var consents = tc
                (consents.purposeConsents, consents.purposeLegitimateInterests) = (Array(1...11), [])
                let byConsent = Self.judge(consents).decide(ConsentRequirement(vendorID: vendor, purposes: [2]))
                #expect(
                    byConsent.isAllowed == ConsentVectorTests.ids(gating["vendor_consents_honoured"])?.contains(vendor),
                    "\(id) vendor \(vendor) consent: \(byConsent)")
                var interests = tc
                (interests.purposeConsents, interests.purposeLegitimateInterests) = ([], [2])
                let byInterest = Self.judge(interests).decide(
                    ConsentRequirement(vendorID: vendor, legitimateInterestPurposes: [2]))
                #expect(
                    byInterest.isAllowed
                        == ConsentVectorTests.ids(gating["vendor_legitimate_interests_honoured"])?.contains(vendor),
                    "\(id) vendor \(vendor) legitimate interest: \(byInterest)")
            }
        }
        #expect(checked == 4 * 25, "\(checked) values checked")
        // The valid case passes every rule on the day it was made (PolicyVersion 2, before 2023-10).
        let valid = try TCString.decode(
            "CPSG_8APSG_8ANwAAAENAwCgAAAAAAAAAAYgACPAAAAA.IDKQA4AAgAKAGQAygAAA.YAAAAAAAAAAA")
        #expect(TCFRules.violation(of: valid, at: valid.created) == nil)
    }

    /// `tc` decoded and judged the day after it was last updated, TCF v2.0 policies allowed:
    /// only disclosure and the purposes decide.
    static func judge(_ tc: TCString) -> ConsentPolicy {
        var settings = PrivacySettings()
        settings.minimumTCFPolicyVersion = 2
        return ConsentPolicy(
            state: PrivacyState(limitAdTracking: false, gdprApplies: true), decoded: DecodedConsent(tcf: tc),
            settings: settings, at: tc.lastUpdated + day)
    }

    @Test func eachRuleRefusesTheStringAndSaysWhich() throws {
        let march5: Int64 = TCFRules.disclosedVendorsSince + 4 * Self.day
        let now = march5 + 10 * Self.day
        let cases: [(String, ConsentStrings.TC, String?)] = [
            ("a v2.3 string", Self.tc { ($0.created, $0.lastUpdated) = (march5, march5) }, nil),
            (
                "IsServiceSpecific 0",
                Self.tc {
                    ($0.created, $0.lastUpdated) = (march5, march5)
                    $0.isServiceSpecific = false
                },
                "tcf_consent: IsServiceSpecific is 0; a TC string must be service-specific (TCF v2: it must always be 1)"
            ),
            (
                "no DisclosedVendors, made after 2026-02-28",
                Self.tc {
                    ($0.created, $0.lastUpdated) = (march5, march5)
                    $0.disclosedVendors = nil
                },
                "tcf_consent: created 2026-03-05 without a DisclosedVendors segment, which TCF v2.3 makes mandatory for strings created after 2026-02-28"
            ),
            (
                "no DisclosedVendors, made on 2026-02-28",
                Self.tc {
                    let created = TCFRules.disclosedVendorsSince - Self.day
                    ($0.created, $0.lastUpdated) = (created, created)
                    $0.disclosedVendors = nil
                }, nil
            ),
            (
                "policy version 2, made after 2023-09-30",
                Self.tc {
                    ($0.created, $0.lastUpdated) = (TCFRules.policyVersion4Since, TCFRules.policyVersion4Since)
                    $0.policyVersion = 2
                },
                "tcf_consent: created 2023-10-01 with policy version 2; one created after 2023-09-30 needs 4 or later (TCF v2.2)"
            ),
            (
                "policy version 2, made on 2023-09-30",
                Self.tc {
                    let created = TCFRules.policyVersion4Since - Self.day
                    ($0.created, $0.lastUpdated) = (created, created)
                    $0.policyVersion = 2
                }, nil
            ),
            (
                "Created two days ahead",
                Self.tc { ($0.created, $0.lastUpdated) = (now + 2 * Self.day, now + 2 * Self.day) },
                "tcf_consent: Created is 2026-03-17, more than a day in the future"
            ),
            (
                "LastUpdated two days ahead",
                Self.tc { ($0.created, $0.lastUpdated) = (march5, now + 2 * Self.day) },
                "tcf_consent: LastUpdated is 2026-03-17, more than a day in the future"
            ),
            (
                "a day ahead: clocks differ",
                Self.tc { ($0.created, $0.lastUpdated) = (now + Self.day, now + Self.day) }, nil
            ),
        ]
        for (name, tc, refusal) in cases {
            do {
                _ = try ConsentPolicy(Self.state(tc), at: now)
                #expect(refusal == nil, "\(name): accepted")
            } catch {
                #expect(error.description == refusal, "\(name)")
            }
        }
        // The same rules hold for GPP's tcfeuv2 section.
        let withoutSegment = Self.tc {
            ($0.created, $0.lastUpdated) = (march5, march5)
            $0.disclosedVendors = nil
        }
        let gpp = ConsentStrings.header(sections: [2]) + "~" + withoutSegment.string
        let error = #expect(throws: ConsentStringError.self) {
            try ConsentPolicy(PrivacyState(limitAdTracking: false, gpp: gpp, gppSid: [2]), at: now)
        }
        #expect(error?.source == .gpp && error?.section == "tcfeuv2")
        #expect(error?.reason.hasPrefix("created 2026-03-05 without a DisclosedVendors segment") == true)
    }

    /// A device that booted before its time sync has a clock in the past (here 1970): a string
    /// "ahead" of it is no refusal, or all consent would be refused until the clock is set. The
    /// rules that need no clock still hold.
    @Test func aClockNotYetSetJudgesNoDateAheadOfIt() throws {
        let march5: Int64 = TCFRules.disclosedVendorsSince + 4 * Self.day
        let fresh = Self.tc { ($0.created, $0.lastUpdated) = (march5, march5) }
        #expect(TCFRules.trusted(86_400_000) == nil && TCFRules.trusted(march5) == march5)
        let unset = try ConsentPolicy(Self.state(fresh), at: 86_400_000)
        #expect(unset.tcString?.lastUpdated == march5)
        let notServiceSpecific = Self.tc {
            ($0.created, $0.lastUpdated) = (march5, march5)
            $0.isServiceSpecific = false
        }
        #expect(throws: ConsentStringError.self) { try ConsentPolicy(Self.state(notServiceSpecific), at: 86_400_000) }
        // A kept state is restored under the same rules, none of them judged by the clock.
        #expect(throws: Never.self) {
            try DecodedConsent(Self.state(Self.tc { ($0.created, $0.lastUpdated) = (march5, march5 + 900 * Self.day) }))
                .validate(at: nil)
        }
    }

    @Test func aVendorNotDisclosedHasNeitherConsentNorALegitimateInterest() throws {
        let requirement = ConsentRequirement(vendorID: 755, purposes: [1], legitimateInterestPurposes: [2])
        let undisclosed = try ConsentPolicy(
            Self.state(Self.tc { $0.disclosedVendors = [1, 754, 756] }), at: ConsentStrings.now)
        #expect(
            undisclosed.decide(requirement).reason == "TCF: vendor 755 was not disclosed to the user (DisclosedVendors)"
        )
        let interestOnly = ConsentRequirement(vendorID: 755, legitimateInterestPurposes: [2])
        #expect(
            undisclosed.decide(interestOnly).reason
                == "TCF: vendor 755 was not disclosed to the user (DisclosedVendors)")
        #expect(undisclosed.servingMode(vendor: 755) == .limited)
        #expect(undisclosed.servingMode(vendor: nil) == .personalized, "purposes alone do not name a vendor")
        let disclosed = try ConsentPolicy(Self.state(Self.tc()), at: ConsentStrings.now)
        #expect(disclosed.decide(requirement) == .allowed && disclosed.servingMode(vendor: 755) == .personalized)
        // A string made before the segment was mandatory and without it: consent alone decides.
        let older = Self.tc {
            let created = TCFRules.disclosedVendorsSince - 30 * Self.day
            ($0.created, $0.lastUpdated) = (created, created)
            $0.disclosedVendors = nil
        }
        #expect(try ConsentPolicy(Self.state(older), at: older.lastUpdated + Self.day).decide(requirement) == .allowed)
    }

    @Test func consentExpiresWithTimeOnTheClockItIsJudgedBy() throws {
        let requirement = ConsentRequirement(vendorID: 755, purposes: [1], identifier: true)
        let made = TCFRules.disclosedVendorsSince + 100 * Self.day
        let tc = Self.tc { ($0.created, $0.lastUpdated) = (made, made) }
        let policy = try ConsentPolicy(Self.state(tc), at: made)
        let lastDay = made + 395 * Self.day
        #expect(policy.tcfExpiry == lastDay)
        #expect(policy.at(lastDay).decide(requirement) == .allowed)
        #expect(policy.at(lastDay).servingMode(vendor: 755) == .personalized)
        let expired = policy.at(lastDay + 1)
        #expect(
            expired.decide(requirement).reason
                == "TCF: the TC string expired: last updated 2026-06-09, more than 395 days ago (privacy.max_consent_age_days)"
        )
        #expect(expired.servingMode(vendor: 755) == .limited)
        #expect(!expired.decidesAlike(policy), "an expiry changes the decisions")
        guard case .object(let view) = expired.decodedView, case .object(let age) = view["tcf_expiry"] else {
            Issue.record("no tcf_expiry in \(expired.decodedView)")
            return
        }
        #expect(
            age["expired"] == .bool(true) && age["expires_at"] == .int(lastDay)
                && age["source"] == .string("tcf_consent"))
        #expect(age["max_age_days"] == .int(395))
        // A shorter age, by configuration; without the GDPR the TC string is not read.
        var monthly = PrivacySettings()
        monthly.maxConsentAgeDays = 30
        #expect(
            try ConsentPolicy(Self.state(tc), settings: monthly, at: made + 31 * Self.day).decide(requirement).reason?
                .hasPrefix("TCF: the TC string expired") == true)
        let elsewhere = PrivacyState(limitAdTracking: false, tcfConsent: tc.string, gdprApplies: false)
        #expect(try ConsentPolicy(elsewhere, at: made + 1000 * Self.day).decide(requirement) == .allowed)
    }
}
