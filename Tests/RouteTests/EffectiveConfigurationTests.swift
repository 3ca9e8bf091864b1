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
            reread.collector.recipients["demo"]?.sealer.keyConfig
                == embedded.collector.recipients["demo"]?.sealer.keyConfig)
        // Either a recipient's files or the demo key, never both.
        #expect(throws: ConfigurationErrors.self) {
            try load(#"{"recipients": {"r": {"demo_key": true, "key_configs": ["k"]}}}"#, in: elsewhere)
        }
    }

    /// A configuration leaving almost everything to its defaults, with relative paths.
    private func minimal(in directory: TemporaryDirectory) throws -> String {
        try FileManager.default.createDirectory(atPath: directory.path("bin"), withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(atPath: directory.path("bin/adapter"), contents: Data("#!/bin/sh\n".utf8)))
        #expect(chmod(directory.path("bin/adapter"), 0o755) == 0)
        let keyConfig = try relativePath(from: directory.url, to: DemoRecipient.keyConfigPath)
        return #"""
            {"socket": {"path": "run/s.sock"}, "state_directory": "state",
             "recipients": {"bidder": {"key_configs": ["\#(keyConfig)"]}},
             "adapters": [
               {"name": "device-context", "recipients": ["bidder"]},
               {"name": "segments", "type": "file", "recipients": ["bidder"], "options": {"path": "signals/a.json"}},
               {"name": "program", "exec": "bin/adapter", "recipients": ["bidder"], "timeout_ms": 75,
                "circuit_breaker": {"failures": 0}}],
             "ad_units": {"u": {"format": "native", "waterfall": [{"network": "test", "parameter": "p"}]}}}
            """#
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
