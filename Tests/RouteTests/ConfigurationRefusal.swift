import Adapters
import Foundation
import TestSupport

@testable import Daemon

/// The errors reading the configuration `json` finds, as `path: reason` in the order given,
/// without the file name; empty when it is accepted. Unless `json` says, its socket and state
/// go under `scratch`: never the machine's default directories.
func configurationRefusal(_ json: String, scratch: TemporaryDirectory?) -> [String] {
    var text = json
    if let scratch, text.first == "{" {
        // Added at the front, so that the file's own keys keep their order.
        var added: [String] = []
        if !json.contains(#""socket""#) { added.append(#""socket": {"path": "\#(scratch.path("run/s.sock"))"}"#) }
        if !json.contains(#""state_directory""#) {
            added.append(#""state_directory": "\#(scratch.path("state"))""#)
        }
        text = "{" + added.map { $0 + ", " }.joined() + text.dropFirst()
    }
    do {
        _ = try ResolvedConfiguration.load(
            json: Data(text.utf8), file: "daemon.json", directory: URL(fileURLWithPath: "/tmp"),
            registry: BuiltinAdapters.registry)
        return []
    } catch {
        return (ConfigurationErrors.of(error) ?? []).map { "\($0.path): \($0.reason)" }
    }
}
