import Foundation
import SecureSignals

#if canImport(Glibc)
    import Glibc
#endif

/// Turns the configuration file's settings into what the daemon runs on, one section at a time
/// (recipients, adapters, the socket and access, mediation): files read, paths made absolute
/// against the file's directory, names checked. Every error names its key.
struct ConfigurationResolver {
    let settings: DaemonConfiguration
    /// How errors name the configuration: its path, or "(embedded default)".
    let file: String
    let directory: URL
    let registry: AdapterRegistry

    func resolve(demoRecipient: Recipient? = nil) throws -> ResolvedConfiguration {
        let recipients = try self.recipients(demo: demoRecipient)
        let adapters = try self.adapters(recipients: recipients)
        let socket = try self.socket()
        return ResolvedConfiguration(
            source: file, socketPath: socket.path, socketMode: socket.mode, socketGroup: socket.group,
            access: AccessPolicy(
                ownUID: getuid(), socketGroup: socket.group, allowedUIDs: Set(settings.access.allowedUIDs),
                allowedGIDs: Set(settings.access.allowedGIDs)),
            collector: CollectorConfiguration(
                adapters: adapters, recipients: recipients,
                requestTimeout: .milliseconds(settings.deadlines.requestTimeoutMilliseconds),
                maxSignalBytes: settings.deadlines.maxSignalBytes,
                stateDirectory: URL(fileURLWithPath: settings.stateDirectory.map(absolute) ?? defaultStateDirectory())),
            mediation: try mediation(signalAdapters: Set(adapters.map(\.name))), limits: limits())
    }

    func fail(_ path: String, _ reason: String) -> ConfigurationError {
        ConfigurationError(file: file, path: path, reason: reason)
    }

    /// `path`, absolute: a relative one resolves against the configuration file's directory.
    func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : directory.appendingPathComponent(path).standardizedFileURL.path
    }

    private func defaultStateDirectory() -> String { ResolvedConfiguration.defaultStateDirectory() }
}
