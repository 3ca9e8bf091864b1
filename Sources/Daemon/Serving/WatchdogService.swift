import ServiceLifecycle

/// WATCHDOG=1 at half of `$WATCHDOG_USEC`.
struct WatchdogService: Service {
    let notifier: SystemdNotifier
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                notifier.notify("WATCHDOG=1")
                // Cancelled at shutdown: that ends the pings, not the daemon.
                try? await Task.sleep(for: interval)
            }
        }
    }
}
