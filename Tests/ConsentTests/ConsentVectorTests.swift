import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Consent

/// The decoders against the IAB's own test vectors (`Tests/Fixtures/consent`, copied verbatim
/// from the shared set; MANIFEST.md says where each case comes from): every `valid` case
/// decodes to every value its `expect` asserts, every `invalid` one is refused, `uncertain`
/// ones are not asserted.
struct ConsentVectorTests {
    static let directory = repositoryRoot.appendingPathComponent("Tests/Fixtures/consent")

    static func vectors(_ file: String) throws -> [String: JSONValue] {
        let data = try Data(contentsOf: directory.appendingPathComponent(file))
        guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: data) else {
            throw VectorError("\(file) is not an object")
        }
        return object
    }

    struct VectorError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func cases(_ file: String, _ list: String) throws -> [[String: JSONValue]] {
        guard case .array(let cases) = try vectors(file)[list] else { throw VectorError("\(file) has no \(list)") }
        return cases.compactMap { if case .object(let object) = $0 { object } else { nil } }
    }

    static func ids(_ value: JSONValue?) -> [Int]? {
        guard case .array(let items) = value else { return nil }
        return items.compactMap { if case .number(let number) = $0 { Int(number) } else { nil } }
    }

    /// Checks every key of `expect` against the decoded view `actual`, with the suffixed keys
    /// of the vectors' `_meta`: `_count`, `_contains`, `_includes`, `_first10`, `_last9`,
    /// `_iso`, and the restriction union `publisher_restrictions_purpose1_type1_vendors`.
    @discardableResult
    static func check(_ expect: [String: JSONValue], against actual: [String: JSONValue], _ label: String) -> Int {
        for (key, expected) in expect.sorted(by: { $0.key < $1.key }) {
            if let base = key.strip("_count") {
                #expect(ids(actual[base])?.count == expected.number.map { Int($0) }, "\(label) \(key)")
            } else if let base = key.strip("_contains") {
                #expect(Set(ids(expected) ?? []).isSubset(of: ids(actual[base]) ?? []), "\(label) \(key)")
            } else if let base = key.strip("_includes"), case .object(let includes) = expected {
                let present = Set(ids(actual[base]) ?? [])
                for (id, included) in includes {
                    #expect(present.contains(Int(id) ?? -1) == (included == .bool(true)), "\(label) \(key) \(id)")
                }
            } else if let base = key.strip("_first10") {
                #expect(ids(actual[base]).map { Array($0.prefix(10)) } == ids(expected), "\(label) \(key)")
            } else if let base = key.strip("_last9") {
                #expect(ids(actual[base]).map { Array($0.suffix(9)) } == ids(expected), "\(label) \(key)")
            } else if let base = key.strip("_iso"), case .number(let milliseconds) = actual[base] {
                let iso = ConsentField.Value.date(Int64(milliseconds)).json
                #expect(iso == expected, "\(label) \(key)")
            } else if key == "publisher_restrictions_purpose1_type1_vendors" {
                var union = Set<Int>()
                if case .array(let restrictions) = actual["publisher_restrictions"] {
                    for case .object(let restriction) in restrictions
                    where restriction["purpose"] == .number(1) && restriction["type"] == .number(1) {
                        union.formUnion(ids(restriction["vendors"]) ?? [])
                    }
                }
                #expect(union.sorted() == ids(expected), "\(label) \(key)")
            } else {
                #expect(actual[key] == expected, "\(label) \(key)")
            }
        }
        return expect.count
    }

    @Test func everyValidTCStringDecodesToWhatItsTestAsserts() throws {
        let cases = try Self.cases("tcf-v2.json", "valid")
        #expect(cases.count >= 16)
        var checked = 0
        for vector in cases {
            guard case .string(let text) = vector["tc_string"], case .object(let expect) = vector["expect"] else {
                Issue.record("a valid case without tc_string or expect")
                continue
            }
            let label = String(text.prefix(24))
            do {
                guard case .object(let actual) = try TCString.decode(text).json else { continue }
                checked += Self.check(expect, against: actual, label)
            } catch {
                Issue.record("\(label): \(error)")
            }
        }
        #expect(checked == 117, "\(checked) values checked")
    }

    @Test func tcfVersion1AndInvalidStringsAreRefusedWithAReason() throws {
        for vector in try Self.cases("tcf-v2.json", "other_versions") {
            guard case .string(let text) = vector["tc_string"] else { continue }
            let error = #expect(throws: ConsentStringError.self) { try TCString.decode(text) }
            #expect(error?.description.contains("TCF v1") == true, "\(error?.description ?? "")")
        }
        let invalid = try Self.cases("tcf-v2.json", "invalid")
        #expect(invalid.count >= 4)
        for vector in invalid {
            guard case .string(let text) = vector["tc_string"] else { continue }
            let error = #expect(throws: ConsentStringError.self, "\(text.prefix(24))") { try TCString.decode(text) }
            #expect(error?.source == .tcfConsent)
        }
    }

    @Test func everyValidGPPStringDecodesToWhatItsTestAsserts() throws {
        let cases = try Self.cases("gpp.json", "valid")
        #expect(cases.count >= 15)
        var checked = 0
        for vector in cases {
            guard case .string(let text) = vector["gpp_string"], case .object(let expect) = vector["expect"] else {
                Issue.record("a valid case without gpp_string or expect")
                continue
            }
            let label = String(text.prefix(24))
            do {
                let gpp = try GPPString.decode(text)
                guard case .object(let actual) = gpp.json, case .object(let sections) = actual["sections"] else {
                    continue
                }
                if let ids = Self.ids(expect["section_ids"]) { #expect(gpp.sectionIDs == ids, "\(label)") }
                if case .object(let expected) = expect["sections"] {
                    for (name, fields) in expected {
                        guard case .object(let fields) = fields, case .object(let decoded) = sections[name] else {
                            Issue.record("\(label): no section \(name)")
                            continue
                        }
                        checked += Self.check(fields, against: decoded, "\(label) \(name)")
                    }
                }
                checked += 1
                if case .object(let raw) = expect["sections_raw"] {
                    // The go-gpp test asserts only the split: each section is also decoded.
                    #expect(
                        Set(raw.keys.compactMap { Int($0) }) == Set(gpp.sections.filter { $0.name != nil }.map(\.id)))
                }
            } catch {
                Issue.record("\(label): \(error)")
            }
        }
        // 72 section fields, and each case's section ids.
        #expect(checked == 72 + cases.count, "\(checked) values checked")
    }

    @Test func everySectionVectorDecodesAloneExceptTheUncertain() throws {
        let vectors = try Self.cases("gpp.json", "section_vectors").filter { $0["uncertain"] != .bool(true) }
        #expect(vectors.count == 8)
        var checked = 0
        for vector in vectors {
            guard case .string(let name) = vector["section"], case .string(let text) = vector["section_string"],
                case .object(let expect) = vector["expect"]
            else {
                Issue.record("a section vector without section, section_string or expect")
                continue
            }
            do {
                if name == "header" {
                    #expect(try GPPString.sectionIDs(header: text[...]) == Self.ids(expect["section_ids"]), "\(text)")
                    continue
                }
                let id = try #require(GPPSection.names.first { $0.value == name }?.key)
                let section = try GPPSection.decode(id: id, text[...])
                checked += Self.check(expect, against: section.fields.json, "\(name) \(text)")
            } catch {
                Issue.record("\(name) \(text): \(error)")
            }
        }
        #expect(checked == 66, "\(checked) values checked")
    }

    @Test func invalidGPPStringsAreRefusedWithAReason() throws {
        let invalid = try Self.cases("gpp.json", "invalid")
        #expect(invalid.count >= 8)
        for vector in invalid {
            guard case .string(let text) = vector["gpp_string"] else { continue }
            let error = #expect(throws: ConsentStringError.self, "\(text.prefix(24))") { try GPPString.decode(text) }
            #expect(error?.source == .gpp)
        }
    }
}

extension String {
    /// The string without `suffix`, when it ends with it.
    fileprivate func strip(_ suffix: String) -> String? {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : nil
    }
}
