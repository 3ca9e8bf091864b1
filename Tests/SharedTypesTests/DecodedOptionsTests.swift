import SharedTypes
import Testing

/// Options decoded from JSON by the type that takes them, held type-erased, and read back as it.
struct DecodedOptionsTests {
    @Settings
    struct Options: Decodable, Sendable, Equatable {
        var path: String
        @WireName("max_age_ms") @Bounds(0...60_000) var maxAgeMilliseconds = 1000
        var tags: [String] = []
        var inner: Inner?

        @Settings
        struct Inner: Decodable, Sendable, Equatable {
            var colour = "red"
        }
    }

    @Test func everyFailureIsNamedBelowThePathItsValueHasInTheDocument() {
        let json: JSONValue = ["max_age_ms": -1, "tags": ["a", 2], "inner": ["color": "blue"], "extra": true]
        #expect {
            _ = try StrictJSON.decode(Options.self, from: json, at: "adapters[2].options")
        } throws: { error in
            (error as? StrictJSON.Failures)?.all.map(\.description) == [
                "adapters[2].options.extra: unknown key; known: inner, max_age_ms, path, tags",
                "adapters[2].options.max_age_ms: must be between 0 and 60000, not -1",
                "adapters[2].options.tags[1]: must be a string",
                "adapters[2].options.inner.color: unknown key; known: colour",
                "adapters[2].options.path: is required",
            ]
        }
    }

    @Test func optionsCompareAsTheirTypeAndAreReadBackOnlyAsIt() throws {
        let decoded = try DecodedOptions.decoding(Options.self, from: ["path": "/a"], at: "options")
        #expect(decoded == (try DecodedOptions.decoding(Options.self, from: ["path": "/a"], at: "x")))
        #expect(decoded != (try DecodedOptions.decoding(Options.self, from: ["path": "/b"], at: "options")))
        #expect(decoded != DecodedOptions(NoOptions()))
        let typed = try DecodedOptions.typed(decoded, as: Options.self, at: "options")
        #expect(typed.path == "/a" && typed.maxAgeMilliseconds == 1000)
        #expect(throws: StrictJSON.Failures.self) {
            try DecodedOptions.typed(decoded, as: NoOptions.self, at: "options")
        }
        // None at all: the type's defaults, which a required key refuses.
        #expect(try DecodedOptions.typed(nil, as: NoOptions.self, at: "options") == NoOptions())
        #expect {
            try DecodedOptions.typed(nil, as: Options.self, at: "setup")
        } throws: { error in
            (error as? StrictJSON.Failures)?.description == "setup.path: is required"
        }
    }
}
