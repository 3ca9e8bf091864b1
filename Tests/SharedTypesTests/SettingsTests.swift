import Foundation
import SharedTypes
import Testing

/// `@Settings`: a section's keys, defaults, bounds and rules declared once, read strictly.
struct SettingsTests {
    @Settings
    struct Sample: Codable, Equatable {
        @WireName("timeout_ms") @Bounds(1...60_000) var timeoutMilliseconds = 500
        @Bounds(2...63, "a policy version") var policy = 4
        var name: String
        var note: String?
        @Bounds(1...11, "a purpose") var purposes: [Int] = []
        @Bounds(0...1_000_000, "a CPM") var cpm: Double?
        var lately = 0

        func validate(at codingPath: [any CodingKey]) throws {
            if name == "forbidden" { throw StrictJSON.Failure(at: codingPath, CodingKeys.name, "is forbidden") }
        }
    }

    /// Several bindings in one declaration, an optional spelled in full, and a package type.
    @Settings
    package struct Shapes: Codable, Equatable {
        var low, high: Int?
        var named: Swift.Optional<String>
        var rate = 1.5
    }

    @Test func everyBindingOfADeclarationIsASettingWithItsOwnType() throws {
        let empty = try JSONDecoder().decode(Shapes.self, from: Data("{}".utf8))
        #expect(empty == Shapes(low: nil, high: nil, named: nil, rate: 1.5))
        let full = try JSONDecoder().decode(
            Shapes.self, from: Data(#"{"low": 1, "high": 2, "named": "n", "rate": 2}"#.utf8))
        #expect(full == Shapes(low: 1, high: 2, named: "n", rate: 2))
    }

    private func read(_ json: String) throws -> Sample {
        try JSONDecoder().decode(Sample.self, from: Data(json.utf8))
    }

    private func failure(_ json: String) -> String {
        do {
            _ = try read(json)
            return "decoded"
        } catch let failure as StrictJSON.Failure {
            return failure.description
        } catch let error as DecodingError {
            return StrictJSON.describe(error).description
        } catch {
            return "\(error)"
        }
    }

    @Test func absentKeysTakeTheDeclaredDefaultsAndEveryPropertyIsRead() throws {
        let sample = try read(#"{"name": "a"}"#)
        #expect(sample.timeoutMilliseconds == 500 && sample.policy == 4 && sample.note == nil && sample.cpm == nil)
        // A property declared later is a key at once: nothing else to write for it to be read.
        #expect(try read(#"{"name": "a", "lately": 7, "note": "n", "cpm": 1.5}"#).lately == 7)
        #expect(try read(#"{"name": "a", "note": null}"#).note == nil)
    }

    @Test func eachRefusalNamesTheKeyAndWhatItMustBe() {
        #expect(failure(#"{}"#) == "name: is required")
        #expect(failure(#"{"name": "a", "colour": 1}"#) == "colour: unknown key")
        #expect(failure(#"{"name": "a", "timeout_ms": 0}"#) == "timeout_ms: must be between 1 and 60000, not 0")
        #expect(failure(#"{"name": "a", "timeout_ms": 1.5}"#) == "timeout_ms: must be a whole number, not 1.5")
        #expect(failure(#"{"name": "a", "policy": 1}"#) == "policy: must be a policy version from 2 to 63, not 1")
        #expect(failure(#"{"name": "a", "purposes": [3, 12]}"#) == "purposes: 12 is not a purpose (1-11)")
        #expect(failure(#"{"name": "a", "cpm": "x"}"#) == "cpm: must be a number (a CPM)")
        #expect(failure(#"{"name": "a", "cpm": 2000000}"#) == "cpm: must be a CPM from 0 to 1000000, not 2000000")
        #expect(failure(#"{"name": "forbidden"}"#) == "name: is forbidden")
    }

    @Test func whileAFailureLogCollectsEveryKeyIsCheckedAndRulesWaitForCleanKeys() throws {
        let log = StrictJSON.FailureLog()
        let sample = try StrictJSON.FailureLog.$current.withValue(log) {
            try read(#"{"name": "forbidden", "timeout_ms": 0, "policy": 99, "bogus": true}"#)
        }
        #expect(
            log.all.map(\.description) == [
                "bogus: unknown key", "timeout_ms: must be between 1 and 60000, not 0",
                "policy: must be between 2 and 63, not 99".replacingOccurrences(
                    of: "between 2 and 63", with: "a policy version from 2 to 63"),
            ])
        // Keys that failed read as their defaults, and the rule across keys is not judged on them.
        #expect(sample.timeoutMilliseconds == 500 && sample.policy == 4)
    }
}
