import Foundation
import SharedTypes
import Testing

/// The helpers that stand in for Foundation's where every module links only
/// FoundationEssentials (percent-encoding, JSON syntax, trimming a set, an error's words),
/// checked against Foundation itself.
struct FoundationStandInTests {
    static let texts = ["", "plain", "a b&c=d", "2026-11-22T08:08:10.123Z", "é/ü?#~._-", "日本", "%41", "x\u{0}y"]

    @Test func percentEncodingMatchesFoundation() {
        var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        unreserved.insert(charactersIn: "-._~")
        for text in Self.texts {
            #expect(PercentEncoding.unreserved(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved))
            unreserved.remove(".")
            #expect(PercentEncoding.segment(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved))
            unreserved.insert(".")
            #expect(PercentEncoding.decoded(PercentEncoding.unreserved(text)) == text)
        }
        for text in ["%41%42", "a%2Fb", "%e6%97%a5", "%", "%4", "%zz", "%FF", "100%", "%C3%A9x"] {
            #expect(PercentEncoding.decoded(text) == text.removingPercentEncoding, "\(text)")
        }
    }

    /// Valid or not as Foundation's parser says, and the byte where it stops at most where
    /// Foundation's error message says (it names the character it could not take).
    @Test func jsonSyntaxMatchesFoundation() {
        let texts = [
            "{}", "[]", "0", "-0.5e+3", "\"a\\u00e9\\n\"", "true", "null", " [1, {\"a\": [false]}] ", "{nope",
            "[1 2]", "{\"a\" 1}", "01", "1.", "-", "\"\\x\"", "\"a\u{1}\"", "tru", "{\"a\": [1, 2",
            "[1] x", "{\"a\":1}}", "", " ", "[\"\\u12G4\"]", "1e", "{\"a\":}", "[,]", "{,}", "\"open",
        ]
        for text in texts {
            let foundation = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            let ours = JSONSyntax.check(Array(text.utf8))
            #expect((ours == .valid) == (foundation != nil), "\(text): \(ours)")
        }
        // Foundation takes a trailing comma (JSONStrictness refuses it first); RFC 8259 does not.
        #expect(JSONSyntax.check(Array("{\"a\": 1,}".utf8)) == .unexpected(at: 8))
        #expect(JSONSyntax.check(Array("{nope".utf8)) == .unexpected(at: 1))
        #expect(JSONSyntax.check(Array("{\n  \"a\" \"r\"}".utf8)) == .unexpected(at: 8))
        #expect(JSONSyntax.check(Array("[1, 2".utf8)) == .truncated)
        #expect(JSONSyntax.check(Array(String(repeating: "[", count: 100_000).utf8)) == .truncated)
    }

    @Test func trimmingASetMatchesFoundation() {
        for text in ["", "[::1]", "[[x]]", "]a[", "[]", "a"] {
            #expect(
                text.trimming { $0 == "[" || $0 == "]" }
                    == text.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        }
    }

    @Test func aFileErrorReadsAsTheSystemWordsIt() {
        do {
            _ = try String(contentsOfFile: "/nonexistent/file", encoding: .utf8)
            Issue.record("read a file that does not exist")
        } catch {
            #expect(error.readableDescription == "No such file or directory")
        }
        #expect(CocoaError(.fileReadUnknown).readableDescription == "error 256")
    }
}
