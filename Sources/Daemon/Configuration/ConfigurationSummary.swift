import Adapters
import FoundationEssentials
import SecureSignals
import SharedTypes
import StateStore

extension ResolvedConfiguration {
    /// What `--check-config` prints.
    public var summary: String {
        var lines = [
            "configuration \(source): OK",
            "socket        \(socketPath) (mode \(String(socketMode, radix: 8)), group \(socketGroup.map { "\($0)" } ?? "-"))",
            "state         \(collector.stateDirectory.path) (database \(StateDatabase.fileName))",
            "deadline      \(collector.requestTimeout) per request, signals up to \(collector.maxSignalBytes) bytes",
        ]
        lines += access.apps.summary.map { "app           \($0)" }
        if let id = advertisingID {
            let timeout = id.timeoutMilliseconds ?? AdvertisingIDSettings.defaultTimeoutMilliseconds
            let source =
                id.program.map { "program \($0.first ?? "") (timeout \(timeout) ms)" } ?? "file \(id.file ?? "")"
            lines.append(
                "advertising   id from \(source), \(id.type.rawValue) unless it says, read again after \(id.refreshMilliseconds) ms"
            )
        }
        for (name, recipient) in collector.recipients.sorted(by: { $0.key < $1.key }) {
            let files = recipient.keys.files.map {
                "key id \($0.sealer.header.keyID), \($0.sealer.header.suite.aead.name)"
            }
            guard let keyURL = recipient.keys.keyURL else {
                lines.append("recipient     \(name): \(files ?? "no key")")
                continue
            }
            let trust = keyURL.caFile.map { ", trusting \($0)" } ?? ""
            let fallback = files.map { "; until then \($0)" } ?? ""
            lines.append(
                "recipient     \(name): keys from \(redactedURL(keyURL.url))\(trust) (not fetched by a check)\(fallback)"
            )
        }
        for adapter in collector.adapters {
            let type =
                adapter.program.map { " (exec \($0.executable))" }
                ?? (adapter.type == adapter.name ? "" : " (\(adapter.type))")
            lines.append(
                "adapter       \(adapter.name)\(type) -> \(adapter.recipients.joined(separator: ", ")); timeout \(adapter.timeout), cache \(adapter.cacheTTL)"
            )
        }
        for unit in mediation.units {
            var sources: [String] = []
            if !unit.bidders.isEmpty {
                let floor = unit.floorCPM.map { ", floor \($0) \(unit.currency)" } ?? ""
                sources.append(
                    "bidders \(unit.bidders.map(\.network).joined(separator: ", ")) "
                        + "(auction \(unit.auction.timeout)\(floor))")
            }
            if !unit.waterfall.isEmpty {
                sources.append("waterfall \(unit.waterfall.map(\.network).joined(separator: " > "))")
            }
            lines.append("ad unit       \(unit.id) (\(unit.format.rawValue)): \(sources.joined(separator: "; "))")
        }
        lines += warnings.map { "warning       \($0)" }
        return lines.joined(separator: "\n")
    }
}

extension ResolvedConfiguration {
    /// `state.sqlite` in the state directory.
    public var stateDatabasePath: String {
        collector.stateDirectory.appendingPathComponent(StateDatabase.fileName).path
    }
}
