import Foundation
import SharedTypes
import Testing

/// The text helpers that stand in for Foundation's where the CLI links only FoundationEssentials,
/// checked against Foundation itself.
struct TextFormattingTests {
    @Test(arguments: [
        0, 0.04, 0.05, 0.25, 0.96, 1, 1.5, 2.675, 12.345, 99.95, 123_456.789, -0.04, -1.25, -3.9, 1e11 + 0.5,
    ])
    func fixedMatchesPrintf(value: Double) {
        for places in 0...3 {
            let printf = String(format: "%.\(places)f", value)
            // printf rounds the exact binary value; `fixed` rounds the scaled value half away
            // from zero: they may differ by one in the last digit, never more.
            let ours = value.fixed(places)
            #expect(ours == printf || abs(Double(ours)! - Double(printf)!) <= pow(10, -Double(places)) + 1e-9)
            #expect(ours.split(separator: ".").last?.count == (places == 0 ? ours.count : places))
        }
    }

    @Test func fixedRoundsTheScaledValueHalfAwayFromZero() {
        #expect(2.675.fixed(2) == "2.68", "printf: 2.67, from 2.67499999... in binary")
        #expect(0.25.fixed(1) == "0.3" && 99.95.fixed(1) == "100.0" && 12.345.fixed(0) == "12")
        #expect(0.5.fixed(0) == "1" && 1.5.fixed(0) == "2" && 2.5.fixed(0) == "3")
        #expect(1e13.fixed(2) == "10000000000000.00", "exact below 2^53 once scaled")
        #expect(0.001.fixed(3) == "0.001" && 7.fixed(3) == "7.000")
    }

    @Test func fixedKeepsTheSignOnlyWhenSomethingShows() {
        #expect((-0.04).fixed(1) == "0.0")
        #expect((-0.05).fixed(1) == "-0.1")
        #expect(Double.infinity.fixed(2) == "inf")
        #expect(1e20.fixed(1) == "1e+20")
    }

    @Test func trimmingMatchesFoundation() {
        for text in ["", " ", "  a b  ", "\n\tkey\r\n", "\u{00A0}x\u{2003}", "a", "é\u{0301} "] {
            #expect(
                text.trimmingWhitespace == text.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(text.debugDescription)")
        }
        #expect("  x ".dropFirst().trimmingWhitespace == "x")
    }

    @Test func paddingKeepsLongTextWhole() {
        #expect("ab".padded(to: 4) == "ab  ")
        #expect("abcdef".padded(to: 4) == "abcdef")
        #expect("abcd".clipped(to: 4) == "abcd")
        #expect("abcdé".clipped(to: 4) == "abc…", "counted in characters")
    }

    @Test func aJSONValueReadsAsAPersonExpects() throws {
        let value: JSONValue = [
            "name": "x", "count": 3, "ratio": .number(0.5), "ok": true, "none": .null, "path": "/a/b",
            "list": [1, "two"],
        ]
        #expect(value["name"]?.description == "x")
        #expect(value["count"]?.description == "3")
        #expect(value["ratio"]?.description == "0.5")
        #expect(value["ok"]?.bool == true && value["none"] == .null && value["missing"] == nil)
        #expect(value["list"]?.description == #"[1,"two"]"#)
        #expect(value["name"]?["inner"] == nil, "a string has no members")
        let decoded = try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(value))
        #expect(decoded == value)
    }
}
