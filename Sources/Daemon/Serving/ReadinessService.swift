import Logging
import ServiceLifecycle
import Timing

/// Initializes the adapters and networks, and sends READY=1 once the socket listens and every
/// one has finished initializing, or 10 s after start, whichever comes first (late adapters go
/// on initializing); then STOPPING=1 at shutdown. A shutdown that comes first sends no READY=1.
struct ReadinessService: Service {
    let application: DaemonApplication
    let listening: AsyncStream<Void>
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        let application = self.application
        let start = ContinuousClock.now
        let listening = self.listening
        // Goes on past READY for adapters past their init timeout; the adapters' stop ends it.
        await application.beginInitializing()
        await cancelWhenGracefulShutdown {
            for await _ in listening.prefix(1) {}
            // Every adapter and network ready or failed, however late, or 10 s after start.
            _ = await withTimeout(.seconds(10) - (ContinuousClock.now - start)) { await application.settle() }
        }
        if !Task.isShuttingDownGracefully {
            let statuses = await application.state.statuses()
            let ready = statuses.filter { $0.state == .ready }.count
            let status = "\(ready) of \(statuses.count) adapters ready"
            if !(await application.isSettled) { logger.warning("ready before every adapter finished initializing") }
            notifier.notify("READY=1\nSTATUS=serving; \(status)")
            logger.notice("ready", metadata: ["adapters": "\(status)"])
            try? await gracefulShutdown()
        }
        notifier.notify("STOPPING=1\nSTATUS=draining in-flight requests")
    }
}
