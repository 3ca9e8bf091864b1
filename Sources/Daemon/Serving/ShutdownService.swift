import Logging
import ServiceLifecycle

/// Stops every adapter at shutdown, after the socket API: adapter programs get SIGTERM, then
/// SIGKILL after their grace period, and are reaped before the daemon exits; then whatever
/// they left behind (`Descendants`). The tracker queue writes what it still owes, and the
/// event stream its last events, for the next start.
struct ShutdownService: Service {
    let application: DaemonApplication
    /// What the leftovers get between SIGTERM and SIGKILL: the longest grace of a program.
    let grace: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        await application.shutdown()
        await Descendants.stopAll(grace: grace, logger: logger)
    }
}
