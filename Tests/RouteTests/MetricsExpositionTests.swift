import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon

/// `/metrics` as a Prometheus user expects it: every family explained, the build and the
/// process described, the adapters counted by state.
struct MetricsExpositionTests {
    @Test func everyFamilyHasItsHelpAndTheProcessAndBuildAreThere() async throws {
        let daemon = try await InProcessDaemon(
            config: demoConfig(adapters: [
                ["name": "test-echo", "recipients": ["demo"]],
                ["name": "test-fail-init", "recipients": ["demo"]],
            ]))
        try await daemon.run { client in
            _ = try await client.collect(requestID: "m")
            _ = try await client.request(.GET, "/v1/nowhere")
            let text = try await metricsText(client)
            let lines = text.split(separator: "\n")
            let typed = lines.filter { $0.hasPrefix("# TYPE ") }.compactMap {
                $0.split(separator: " ").dropFirst(2).first
            }
            #expect(typed.count > 10)
            for (index, line) in lines.enumerated() where line.hasPrefix("# TYPE ") {
                let name = line.split(separator: " ")[2]
                #expect(index > 0 && lines[index - 1].hasPrefix("# HELP \(name) "), "\(name) has no HELP")
            }
            #expect(text.contains("secure_signals_build_info{version=\"\(DaemonVersion.current)\"} 1"))
            #expect(text.contains(#"secure_signals_adapters{kind="builtin",state="ready"} 1"#), "\(text)")
            #expect(text.contains(#"secure_signals_adapters{kind="builtin",state="failed"} 1"#))
            func value(_ name: String) -> Double? {
                lines.first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            }
            #expect((value("process_resident_memory_bytes") ?? 0) > 1_000_000)
            #expect((value("process_open_fds") ?? 0) > 2)
            #expect((value("process_max_fds") ?? 0) >= (value("process_open_fds") ?? 1))
            let started = try #require(value("process_start_time_seconds"))
            #expect(abs(started - Date().timeIntervalSince1970) < 24 * 3600, "started within a day: \(started)")
            #expect((value("process_cpu_seconds_total") ?? 0) > 0)
        }
    }

    /// docs/api.md's metrics table and the daemon's help texts name the same families.
    @Test func theReferenceDocumentsEveryFamilyThatHasHelp() throws {
        let reference = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let row = try Regex(#"^\| `(secure_signals_[a-z_]+)`"#).anchorsMatchLineEndings()
        let documented = Set(reference.matches(of: row).compactMap { $0.output[1].substring.map(String.init) })
        let explained = Set(MetricHelp.texts.keys).union(ScrapedMetrics.families).union(["secure_signals_build_info"])
        #expect(
            documented == explained,
            "docs only: \(documented.subtracting(explained)); code only: \(explained.subtracting(documented))")
    }
}
