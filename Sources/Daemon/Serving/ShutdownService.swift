import ServiceLifecycle

/// Stops every adapter at shutdown, after the socket API: adapter programs get SIGTERM, then
/// SIGKILL after their grace period, and are reaped before the daemon exits. Trackers already
/// queued get up to two seconds to be fired: an impression recorded is not lost to a restart.
struct ShutdownService: Service {
    let application: DaemonApplication

    func run() async throws {
        try? await gracefulShutdown()
        await application.shutdown()
    }
}
