import Adapters
import Foundation
import TestSupport
import Testing

@testable import Daemon

/// The built-ins' options, decoded by the types that take them when the configuration is read:
/// a misspelt key, a value of the wrong type and a missing required option are configuration
/// errors naming their key paths, all of them in one reading.
@Suite struct OptionConfigurationTests {
    private let scratch = try? TemporaryDirectory()

    private func refusal(_ json: String) -> [String] { configurationRefusal(json, scratch: scratch) }

    @Test func anAdaptersMisspeltWrongOrMissingOptionIsNamedByItsKeyPath() {
        #expect(
            refusal(#"{"adapters": [{"name": "device-context", "options": {"brand": "b", "modle": "m"}}]}"#)
                == ["adapters[0].options.modle: unknown key; known: brand, model, os_release_path"])
        #expect(
            refusal(#"{"adapters": [{"name": "file", "options": {"path": "/tmp/s", "max_age_ms": "an hour"}}]}"#)
                == ["adapters[0].options.max_age_ms: must be a whole number"])
        #expect(
            refusal(#"{"adapters": [{"name": "file", "options": {"path": "/tmp/s", "sdk_version": "beta"}}]}"#)
                == ["adapters[0].options.sdk_version: not a version: beta"])
        #expect(
            refusal(#"{"adapters": [{"name": "signal", "type": "file", "options": {"max_age_ms": 1000}}]}"#)
                == ["adapters[0].options.path: is required"])
        #expect(
            refusal(#"{"adapters": [{"name": "file"}]}"#) == ["adapters[0].options.path: is required"],
            "no options at all are its defaults, which lack the path")
    }

    @Test func everyAdapterOptionErrorIsReportedInOneReading() {
        let errors = refusal(
            """
            {
              "adapters": [
                {"name": "device-context", "options": {"brand": 7, "colour": "red"}},
                {"name": "first-party-id", "options": {"seed": 1}},
                {"name": "file", "options": {"path": ["/tmp/s"]}},
                {"name": "sidecar", "exec": "/bin/true", "options": {"anything": {"the": "program's"}}}
              ]
            }
            """)
        #expect(
            errors == [
                "adapters[0].options.colour: unknown key; known: brand, model, os_release_path",
                "adapters[0].options.brand: must be a string",
                "adapters[1].options.seed: unknown key; this takes none",
                "adapters[2].options.path: must be a string",
            ], "\(errors)")
    }

    @Test func aBuiltInsOptionsAreDecodedOnceWithTheirPathsMadeAbsolute() throws {
        let scratch = try TemporaryDirectory()
        let configuration = try ResolvedConfiguration.load(
            json: Data(
                #"{"socket": {"path": "\#(scratch.path("s.sock"))"}, "state_directory": "\#(scratch.path("state"))", "adapters": [{"name": "file", "options": {"path": "signals/a", "max_age_ms": 5}}]}"#
                    .utf8),
            file: "daemon.json", directory: scratch.url, registry: BuiltinAdapters.registry)
        let options = try #require(configuration.collector.adapters.first?.options)
        #expect(
            options
                == (try FileSignalAdapter.decodeOptions(["path": .string(scratch.path("signals/a")), "max_age_ms": 5])))
        #expect(options != (try FileSignalAdapter.decodeOptions(["path": "signals/a", "max_age_ms": 5])))
    }
}
