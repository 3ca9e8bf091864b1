import Adapters
import Foundation
import TestSupport
import Testing

@testable import Daemon

/// `--print-config`: the configuration as the daemon runs it, every default written out, which
/// `--config` reads back to the same configuration from anywhere.
@Suite struct EffectiveConfigurationTests {
    @Test func everyDefaultIsWrittenOutAndEveryPathMadeAbsolute() throws {
        let directory = try TemporaryDirectory()
        let printed = try JSONSerialization.jsonObject(
            with: Data(try load(minimal(in: directory), in: directory).printedConfiguration().utf8))
        let json = try #require(printed as? [String: Any])
        let adapters = try #require(json["adapters"] as? [[String: Any]])
        let builtIn = adapters[0]
        #expect(builtIn["type"] as? String == "device-context")
        #expect(builtIn["timeout_ms"] as? Int == 50)
        #expect(builtIn["init_timeout_ms"] as? Int == 10_000)
        #expect(builtIn["cache_ttl_ms"] as? Int == 0)
        #expect(builtIn["circuit_breaker"] as? [String: Int] == ["failures": 3, "cool_down_ms": 10_000])
        let consent = try #require(builtIn["consent"] as? [String: Any])
        #expect(consent["identifier"] as? Bool == false && consent["purposes"] as? [Int] == [])
        #expect((json["privacy"] as? [String: Any])?["min_tcf_policy_version"] as? Int == 4)
        #expect(builtIn["args"] == nil && builtIn["env"] == nil && builtIn["stop_grace_ms"] == nil)
        let file = adapters[1]
        #expect((file["options"] as? [String: Any])?["path"] as? String == directory.path("signals/a.json"))
        let program = adapters[2]
        #expect(program["exec"] as? String == directory.path("bin/adapter"))
        #expect(program["stop_grace_ms"] as? Int == 3000)
        #expect(program["timeout_ms"] as? Int == 75)
        #expect(program["circuit_breaker"] as? [String: Int] == ["failures": 0, "cool_down_ms": 10_000])
        let recipients = try #require(json["recipients"] as? [String: [String: [String]]])
        #expect(recipients["bidder"]?["key_configs"] == [DemoRecipient.keyConfigPath])
        let socket = try #require(json["socket"] as? [String: Any])
        #expect(socket["path"] as? String == directory.path("run/s.sock"))
        #expect(socket["mode"] as? String == "0660")
        #expect(socket["group"] is NSNull)
        #expect((json["metrics"] as? [String: Any])?["listen"] is NSNull)
        #expect(json["state_directory"] as? String == directory.path("state"))
        #expect(json["log_level"] as? String == "info")
        #expect((json["limits"] as? [String: Any])?["max_stored_ads"] as? Int == 2000)
        // The network a waterfall names is listed with its defaults.
        let networks = try #require(json["ad_networks"] as? [String: [String: Any]])
        #expect(networks["test"]?["lazy"] as? Bool == false)
        #expect(networks["test"]?["init_timeout_ms"] as? Int == 10_000)
        // A network's setup paths resolve like the file's own.
        #expect((networks["house"]?["setup"] as? [String: String])?["directory"] == directory.path("house-ads"))
        let unit = try #require((json["ad_units"] as? [String: [String: Any]])?["u"])
        #expect(unit["max_retries"] as? Int == 0 && unit["preload"] as? Bool == false)
        #expect(unit["expiry_ms"] as? Int == 3_600_000)
        #expect((unit["waterfall"] as? [[String: Any]])?.first?["timeout_ms"] as? Int == 2000)
    }

    @Test func thePrintedConfigurationReadsBackTheSameFromAnotherDirectory() throws {
        let directory = try TemporaryDirectory()
        let first = try load(minimal(in: directory), in: directory).printedConfiguration()
        let elsewhere = try TemporaryDirectory()
        let second = try load(first, in: elsewhere).printedConfiguration()
        #expect(second == first)
        // The level --log-level sets is the one the daemon would run at.
        let debug = try load(first, in: elsewhere).printedConfiguration(logLevel: .debug)
        #expect(debug.contains(#""log_level" : "debug""#))
    }

    @Test func theEmbeddedDefaultPrintsItsDemoKeyAsASettingAFileCanHold() throws {
        let embedded = try ResolvedConfiguration.embeddedDefault(registry: BuiltinAdapters.registry)
        let printed = try embedded.printedConfiguration()
        #expect(printed.contains(#""demo_key" : true"#))
        let elsewhere = try TemporaryDirectory()
        let reread = try load(printed, in: elsewhere)
        #expect(try reread.printedConfiguration() == printed)
        #expect(reread.warnings == embedded.warnings && reread.warnings.count == 1)
        #expect(
            reread.collector.recipients["demo"]?.keys.files?.sealer.keyConfig
                == embedded.collector.recipients["demo"]?.keys.files?.sealer.keyConfig)
        // Either a recipient's files or the demo key, never both.
        #expect(throws: ConfigurationErrors.self) {
            try load(#"{"recipients": {"r": {"demo_key": true, "key_configs": ["k"]}}}"#, in: elsewhere)
        }
    }

    /// Every key set to something other than its default: each one the file sets is printed as
    /// the file set it, so that none is dropped or rewritten on the way.
    @Test func everySettingAFileMakesIsPrintedAsItWasMade() throws {
        let directory = try TemporaryDirectory()
        try makeProgram(in: directory)
        let key = DemoRecipient.keyConfigPath
        let written: [String: Any] = [
            "socket": ["path": directory.path("run/s.sock"), "mode": "0640", "group": "0"],
            "access": ["allowed_uids": [1234], "allowed_gids": [55]],
            "state_directory": directory.path("state"),
            "recipients": ["bidder": ["key_configs": [key, key]]],
            "deadlines": [
                "request_timeout_ms": 400, "adapter_timeout_ms": 40, "init_timeout_ms": 9000, "max_signal_bytes": 2048,
            ],
            "circuit_breaker": ["failures": 7, "cool_down_ms": 1234],
            "limits": [
                "max_connections": 100, "max_connections_per_peer": 10, "idle_timeout_ms": 20000,
                "read_timeout_ms": 4000, "max_event_streams": 16, "max_event_streams_per_peer": 4,
                "event_stream_buffer": 128, "max_requests_in_flight_per_peer": 16, "max_stored_ads": 100,
            ],
            "trackers": ["max_age_ms": 60000],
            "privacy": ["min_tcf_policy_version": 2],
            "log_level": "debug",
            "metrics": ["listen": "127.0.0.1:9999"],
            "adapters": [
                [
                    "name": "context", "type": "device-context", "recipients": ["bidder"], "timeout_ms": 70,
                    "init_timeout_ms": 900, "cache_ttl_ms": 5, "options": ["brand": "Acme"],
                    "circuit_breaker": ["failures": 2, "cool_down_ms": 500],
                    "consent": [
                        "gvl_vendor_id": 12, "purposes": [1, 3], "legitimate_interest_purposes": [2],
                        "special_features": [1], "identifier": true,
                    ],
                ],
                [
                    "name": "program", "exec": directory.path("bin/adapter"), "args": ["-v"], "env": ["A": "b"],
                    "stop_grace_ms": 1500, "recipients": ["bidder"], "timeout_ms": 80, "init_timeout_ms": 800,
                    "cache_ttl_ms": 10, "options": ["any": ["thing": 1]],
                    "circuit_breaker": ["failures": 0, "cool_down_ms": 100],
                ],
            ],
            "ad_networks": ["test": ["lazy": true, "init_timeout_ms": 1234, "setup": ["tracks_itself": true]]],
            "ad_units": [
                "u": [
                    "format": "rewarded", "max_retries": 2, "preload": true, "expiry_ms": 5000,
                    "waterfall": [
                        [
                            "network": "test", "parameter": "p", "timeout_ms": 300, "options": ["delay_ms": 5],
                            "consent": ["gvl_vendor_id": 755, "purposes": [1]],
                        ]
                    ],
                ]
            ],
        ]
        let json = try JSONSerialization.data(withJSONObject: written)
        let printed = try load(String(decoding: json, as: UTF8.self), in: directory).printedConfiguration()
        // Both as JSON reads them, so that a number and a boolean compare alike.
        let expected = try JSONSerialization.jsonObject(with: json)
        let read = try JSONSerialization.jsonObject(with: Data(printed.utf8))
        #expect(Self.missing(expected, in: read).isEmpty, "\(Self.missing(expected, in: read))")
        #expect(try load(printed, in: try TemporaryDirectory()).printedConfiguration() == printed)
    }

    /// Where `expected` has a value that `actual` lacks or differs in: objects need each of
    /// their keys, arrays each element in order.
    static func missing(_ expected: Any, in actual: Any?, at path: String = "") -> [String] {
        switch expected {
        case let object as [String: Any]:
            guard let other = actual as? [String: Any] else { return [path] }
            return object.sorted { $0.key < $1.key }.flatMap {
                missing($0.value, in: other[$0.key], at: path + "." + $0.key)
            }
        case let array as [Any]:
            guard let other = actual as? [Any], other.count == array.count else { return [path] }
            return zip(array, other).enumerated().flatMap { missing($1.0, in: $1.1, at: "\(path)[\($0)]") }
        default:
            guard let actual else { return [path] }
            return "\(expected)" == "\(actual)" ? [] : ["\(path): \(expected) became \(actual)"]
        }
    }

    /// A configuration leaving almost everything to its defaults, with relative paths.
    private func minimal(in directory: TemporaryDirectory) throws -> String {
        try makeProgram(in: directory)
        try FileManager.default.createDirectory(atPath: directory.path("house-ads"), withIntermediateDirectories: true)
        let keyConfig = try relativePath(from: directory.url, to: DemoRecipient.keyConfigPath)
        return #"""
            {"socket": {"path": "run/s.sock"}, "state_directory": "state",
             "recipients": {"bidder": {"key_configs": ["\#(keyConfig)"]}},
             "adapters": [
               {"name": "device-context", "recipients": ["bidder"]},
               {"name": "segments", "type": "file", "recipients": ["bidder"], "options": {"path": "signals/a.json"}},
               {"name": "program", "exec": "bin/adapter", "recipients": ["bidder"], "timeout_ms": 75,
                "circuit_breaker": {"failures": 0}}],
             "ad_networks": {"house": {"setup": {"directory": "house-ads"}}},
             "ad_units": {"u": {"format": "native", "waterfall": [{"network": "test", "parameter": "p"}]}}}
            """#
    }

    /// An executable `bin/adapter` in `directory`, for an exec adapter to name.
    private func makeProgram(in directory: TemporaryDirectory) throws {
        try FileManager.default.createDirectory(atPath: directory.path("bin"), withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(atPath: directory.path("bin/adapter"), contents: Data("#!/bin/sh\n".utf8)))
        #expect(chmod(directory.path("bin/adapter"), 0o755) == 0)
    }

    /// `target` relative to `base`, with `..` as needed: the configuration must resolve it.
    private func relativePath(from base: URL, to target: String) throws -> String {
        let from = base.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let to = URL(fileURLWithPath: target).standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let common = zip(from, to).prefix { $0 == $1 }.count
        return (Array(repeating: "..", count: from.count - common) + to[common...]).joined(separator: "/")
    }

    private func load(_ json: String, in directory: TemporaryDirectory) throws -> ResolvedConfiguration {
        try ResolvedConfiguration.load(
            json: Data(json.utf8), file: directory.path("daemon.json"), directory: directory.url,
            registry: BuiltinAdapters.registry)
    }
}
