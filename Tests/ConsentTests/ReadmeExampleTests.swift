import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Consent

/// The README's example TC string grants what the README says it does, under the default
/// policy, for as long as the README says: read from the README itself, so that the example
/// and its paragraph cannot drift apart.
struct ReadmeExampleTests {
    static let day: Int64 = 86_400_000

    /// The first match of `pattern`'s first group in `text`.
    static func first(_ pattern: String, in text: String) throws -> String {
        let expression = try NSRegularExpression(pattern: pattern)
        let match = try #require(expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)))
        return String(text[try #require(Range(match.range(at: 1), in: text))])
    }

    static func epoch(_ day: String) throws -> Int64 {
        let date = try #require(ISO8601DateFormatter().date(from: day + "T00:00:00Z"))
        return Int64(date.timeIntervalSince1970 * 1000)
    }

    @Test func theREADMEsExampleGrantsWhatItSays() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let text = try Self.first(#""tcf_consent": "([A-Za-z0-9_.-]+)""#, in: readme)
        #expect(readme.contains(#""gdpr_applies": true"#), "the example says the GDPR applies")
        let made = try Self.epoch(try Self.first(#"It was made on\s+(\d{4}-\d{2}-\d{2})"#, in: readme))
        let until = try Self.epoch(try Self.first(#"counts as consent until (\d{4}-\d{2}-\d{2})"#, in: readme))

        // What the paragraph says it is.
        let tc = try TCString.decode(text)
        #expect(tc.created == made && tc.lastUpdated == made)
        #expect(tc.policyVersion == 5 && tc.isServiceSpecific && tc.disclosedVendors == [755])
        #expect(tc.purposeConsents == Array(1...11) && tc.specialFeatureOptins == [1, 2])
        #expect(tc.purposeLegitimateInterests == [2, 7, 8, 9, 10, 11])
        #expect(tc.vendorConsents == [755] && tc.vendorLegitimateInterests == [755])
        #expect(until == made + 395 * Self.day, "395 days after its LastUpdated")

        // What it grants under the default policy, on any day until then, and not after.
        let state = PrivacyState(limitAdTracking: false, tcfConsent: text, gdprApplies: true)
        let policy = try ConsentPolicy(state, at: made)
        let firstPartyID = ConsentRequirement(purposes: [1], identifier: true)
        for day in [made, made + 200 * Self.day, until] {
            #expect(policy.at(day).decide(firstPartyID) == .allowed)
            #expect(policy.at(day).servingMode(vendor: 755) == .personalized)
            #expect(policy.at(day).servingMode(vendor: nil) == .personalized)
        }
        #expect(policy.at(until + 1).decide(firstPartyID).reason?.hasPrefix("TCF: the TC string expired") == true)
        #expect(policy.at(until + 1).tcfExpired)
    }
}
