import SharedTypes
import TestSupport
import Testing

@testable import Consent

/// Google's Additional Consent string: versions 1 and 2 decoded, every malformed form refused
/// with its reason, and a line item's Google ATP id gated on it where the GDPR applies.
struct AdditionalConsentTests {
    @Test func versionsOneAndTwoDecode() throws {
        let v2 = try AdditionalConsentString.decode("2~1.35.41.101~dv.9.21.81")
        #expect(v2 == .init(version: 2, consentedProviders: [1, 35, 41, 101], disclosedProviders: [9, 21, 81]))
        #expect(
            v2.json
                == .object([
                    "version": .int(2), "consented_providers": .ids([1, 35, 41, 101]),
                    "disclosed_providers": .ids([9, 21, 81]),
                ]))
        let v1 = try AdditionalConsentString.decode("1~1.35.41")
        #expect(v1 == .init(version: 1, consentedProviders: [1, 35, 41], disclosedProviders: nil))
        #expect(v1.json == .object(["version": .int(1), "consented_providers": .ids([1, 35, 41])]))
        // Either list may be empty; ids come back sorted.
        #expect(
            try AdditionalConsentString.decode("2~~dv.")
                == .init(version: 2, consentedProviders: [], disclosedProviders: []))
        #expect(try AdditionalConsentString.decode("2~41.1~dv.9").consentedProviders == [1, 41])
        #expect(try AdditionalConsentString.decode("1~").consentedProviders == [])
    }

    @Test func aMalformedStringIsRefusedWithItsReason() {
        let cases: [(String, String)] = [
            ("", "addtl_consent: has no version 1 or 2 before its first ~"),
            ("3~1.2~dv.3", "addtl_consent: has no version 1 or 2 before its first ~"),
            ("2~1.35", "addtl_consent: a version 2 string has 3 parts (2~ids~dv.ids), not 2"),
            ("2~1.35~9.21", "addtl_consent: its third part does not begin with dv."),
            ("1~1.35~dv.9", "addtl_consent: a version 1 string has 2 parts (1~ids), not 3"),
            ("2~1..35~dv.9", "addtl_consent: consented ids: item 2 is not an id from 1 to 999999999"),
            ("2~1.35.~dv.9", "addtl_consent: consented ids: item 3 is not an id from 1 to 999999999"),
            ("2~0~dv.", "addtl_consent: consented ids: item 1 is not an id from 1 to 999999999"),
            ("2~1~dv.9.x", "addtl_consent: disclosed ids: item 2 is not an id from 1 to 999999999"),
            ("2~-4~dv.", "addtl_consent: consented ids: item 1 is not an id from 1 to 999999999"),
            ("2~1234567890~dv.", "addtl_consent: consented ids: item 1 is not an id from 1 to 999999999"),
            ("2~١~dv.", "addtl_consent: consented ids: item 1 is not an id from 1 to 999999999"),
        ]
        for (text, reason) in cases {
            let error = #expect(throws: ConsentStringError.self, "\(text)") { try AdditionalConsentString.decode(text) }
            #expect(error?.description == reason, "\(text)")
        }
    }

    @Test func aGoogleATPIDNeedsItsProvidersConsentWhereTheGDPRApplies() throws {
        let tc = ConsentStrings.TC.consentingToEverything(vendor: 755).string
        func policy(_ additional: String?, gdpr: Bool = true) throws -> ConsentPolicy {
            try ConsentPolicy(
                PrivacyState(limitAdTracking: false, tcfConsent: tc, addtlConsent: additional, gdprApplies: gdpr),
                at: ConsentStrings.now)
        }
        let provider = { (id: Int) in ConsentRequirement(purposes: [1], googleATPID: id) }
        let state = "2~1.35.41.101~dv.9.21.81"
        #expect(try policy(state).decide(provider(35)) == .allowed)
        #expect(
            try policy(state).decide(provider(9)).reason
                == "Additional Consent: Google ATP 9 was disclosed to the user but not consented to (addtl_consent)")
        #expect(
            try policy(state).decide(provider(7)).reason
                == "Additional Consent: Google ATP 7 has no consent (addtl_consent)")
        #expect(
            try policy(nil).decide(provider(35)).reason
                == "Additional Consent: Google ATP 35 has no consent: no addtl_consent string is set")
        #expect(try policy("1~35").decide(provider(35)) == .allowed)
        #expect(try policy(nil, gdpr: false).decide(provider(35)) == .allowed, "outside the GDPR it is not read")
        // The id alone asks for consent: no state at all denies it.
        #expect(ConsentRequirement(googleATPID: 35).needsConsent)
        #expect(ConsentPolicy.unset.decide(provider(35)).reason == "no privacy state has been set")
        // A malformed one is refused with the state.
        let error = #expect(throws: ConsentStringError.self) { try policy("2~35") }
        #expect(error?.source == .addtlConsent)
        guard case .object(let view) = try policy(state).decodedView else { return }
        #expect(try view["addtl_consent"] == AdditionalConsentString.decode(state).json)
    }
}
