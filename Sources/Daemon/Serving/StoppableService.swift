import ServiceLifecycle

/// A piece whose work is a `run()` that lasts until it is asked to stop (the tracker queue,
/// the event journal's writer), in the daemon's service group: a graceful shutdown asks it to
/// stop, and the group waits for its run to end (to write what it owes) before it stops the
/// services listed before it.
struct StoppableService: Service {
    let work: @Sendable () async -> Void
    let requestStop: @Sendable () -> Void

    func run() async {
        await withGracefulShutdownHandler {
            await work()
        } onGracefulShutdown: {
            requestStop()
        }
    }
}
