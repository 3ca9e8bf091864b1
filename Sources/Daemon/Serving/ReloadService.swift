import Logging
import SecureSignals
import ServiceLifecycle
import UnixSignals

/// Reloads configuration and keys on SIGHUP, without dropping connections.
struct ReloadService: Service {
    let file: String?
    let socket: String?
    let registry: AdapterRegistry
    let application: DaemonApplication
    /// The log level the configuration sets; nil when `--log-level` fixed it.
    let level: LogLevelSetting?
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                await reload()
            }
        }
    }

    func reload() async {
        notifier.notify("RELOADING=1\nSTATUS=reloading configuration and keys")
        do {
            let configuration = try ResolvedConfiguration.load(file: file, socket: socket, registry: registry)
            try await application.reload(configuration)
            level?.level = configuration.logLevel ?? .info
            logger.notice("reloaded configuration and keys", metadata: ["source": "\(configuration.source)"])
            notifier.notify("READY=1\nSTATUS=serving; configuration reloaded")
        } catch {
            logger.error("reload failed; keeping the running configuration", metadata: ["error": "\(error)"])
            // STATUS is one line: the first error, and how many more.
            let errors = ConfigurationErrors.of(error)?.map(\.description) ?? ["\(error)"]
            let more = errors.count > 1 ? " (and \(errors.count - 1) more)" : ""
            notifier.notify("READY=1\nSTATUS=serving; reload failed: \(errors.first ?? "")\(more)")
        }
    }
}
