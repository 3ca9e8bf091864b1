import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Consent

/// The US sections 7-27 (usnat versions 1 and 2 and every state) against the IAB reference
/// implementations' own strings (`Tests/Fixtures/consent/2026/gpp-us-states.json`, vendored
/// from the shared set): every case decoded field by field; 24-27 in the published text's form
/// too; wrong lengths and headers refused, naming the section and field.
struct GPPStateVectorTests {
    static let file = "2026/gpp-us-states.json"

    @Test func everyUSStateVectorDecodesToWhatItsTestAsserts() throws {
        let cases = try ConsentVectorTests.cases(Self.file, "valid")
        #expect(cases.count == 21)
        var checked = 0
        var sectionsSeen = Set<String>()
        for vector in cases {
            guard case .string(let text) = vector["gpp_string"], case .object(let expect) = vector["expect"],
                case .object(let expected) = expect["sections"]
            else {
                Issue.record("a valid case without gpp_string or expect")
                continue
            }
            let label = (vector["id"]).flatMap { if case .string(let id) = $0 { id } else { nil } } ?? text
            do {
                let gpp = try GPPString.decode(text)
                #expect(gpp.sectionIDs == ConsentVectorTests.ids(expect["section_ids"]), "\(label)")
                guard case .object(let actual) = gpp.json, case .object(let sections) = actual["sections"] else {
                    continue
                }
                for (name, fields) in expected {
                    guard case .object(let fields) = fields, case .object(var decoded) = sections[name] else {
                        Issue.record("\(label): no section \(name)")
                        continue
                    }
                    // The reference decoders give a segment the string lacks as its empty list.
                    for (key, value) in fields where value == .array([]) && decoded[key] == nil {
                        decoded[key] = .array([])
                    }
                    checked += ConsentVectorTests.check(fields, against: decoded, "\(label) \(name)")
                    sectionsSeen.insert(name)
                }
            } catch {
                Issue.record("\(label): \(error)")
            }
        }
        #expect(checked == 284, "\(checked) values checked")
        #expect(sectionsSeen.count == 17, "\(sectionsSeen.sorted())")
    }

    /// 24-27 as the published text writes them, a section header first, decode to the fields of
    /// the reference implementation's form, with the header's `Version`.
    @Test func sections24To27AreReadInBothForms() throws {
        for id in 24...27 {
            let subsection: (gpc: Bool?, sensitive: [Int]?) = id == 24 ? (true, nil) : (nil, [2, 1, 0, 2, 1, 0, 2, 1])
            let fields = ["SaleOptOut": 1, "MspaMode": 1]
            let reference = try GPPString.decode(
                ConsentStrings.usState(id, fields, gpc: subsection.gpc, sensitive: subsection.sensitive))
            let published = try GPPString.decode(
                ConsentStrings.usState(
                    id, fields, gpc: subsection.gpc, sensitive: subsection.sensitive, sectionHeader: true))
            let name = try #require(ConsentStrings.usNames[id])
            let core = try #require(reference.section(id)?.fields)
            #expect(core.int("MspaVersion") == 1 && core.int("SaleOptOut") == 1 && core.int("MspaMode") == 1, "\(name)")
            if id == 24 {
                #expect(core["Gpc"] == .bool(true) && core["GpcSegmentIncluded"] == .bool(true))
            } else {
                #expect(core["SensitiveDataProcessing"] == .list([2, 1, 0, 2, 1, 0, 2, 1]), "\(name)")
                #expect(core["SensitiveDataConsentSegmentIncluded"] == .bool(true), "\(name)")
            }
            #expect(published.section(id)?.fields == [ConsentField("Version", .int(1))] + core, "\(name)")
            // Without its sub-section, in either form.
            let bare = try GPPString.decode(ConsentStrings.usState(id, sectionHeader: true))
            #expect(bare.section(id)?.fields.int("SaleOptOut") == 2, "\(name)")
        }
    }

    @Test func aSectionOfTheWrongLengthOrAHeaderNamingAnAbsentSectionIsRefused() throws {
        func refusal(_ text: String) -> String? {
            #expect(throws: ConsentStringError.self, "\(text)") { try GPPString.decode(text) }?.description
        }
        // Texas's core is 42 bits: 7 characters; 9 is too many, 6 too few.
        #expect(
            refusal("DBABEw~BVWSSVWAA")
                == "gpp: section ustx: the core has 12 bits past its last field (MspaServiceProviderMode), "
                + "more than padding: a section of the wrong length")
        #expect(
            refusal("DBABEw~BVWSSV")
                == "gpp: section ustx: ends at bit 36, needs 38 for MspaCoveredTransaction")
        #expect(
            refusal("DBABEw~BVWSSVWA.YAAA")
                == "gpp: section ustx: the GPC sub-section has 21 bits past its last field (Gpc), more than padding: "
                + "a section of the wrong length")
        // Florida has no GPC sub-section; Rhode Island's second segment is its sensitive data.
        #expect(refusal("DBABAw~BVWSSZlY.YA") == "gpp: section usfl: has 1 sub-sections after its core, at most 0")
        #expect(
            refusal("DBABSYA~BVVV.k")
                == "gpp: section usri: ends at bit 6, needs 16 for SensitiveDataProcessing")
        // The header names usnat and ustx; the string carries one section.
        let twoIDs = ConsentStrings.header(sections: [7, 16])
        #expect(
            refusal(twoIDs + "~BVWSSVWA")
                == "gpp: section header: SectionIds names section ustx (16), which the string does not carry")
        #expect(
            refusal("DBABEw~BVWSSVWA~1YNN") == "gpp: section header: SectionIds names 1 sections, the string carries 2")
        // A published-form header whose sub-sections are not those that follow.
        #expect(
            refusal(ConsentStrings.usState(27, sectionHeader: true) + ".kkk")
                == "gpp: section usri: its header's SubSections name [], the section has 1 after its core "
                + "(sub-section 1, once, is the only one defined)")
        #expect(
            refusal("DBABEw~CVWSSVWA")
                == "gpp: section ustx: has Version 2, which the GPP specification does not define")
    }
}
