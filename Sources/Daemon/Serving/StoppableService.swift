import ServiceLifecycle

/// A piece whose work is a `run()` that lasts until it is asked to stop (the tracker queue,
/// the event journal's writer), in the daemon's service group: a graceful shutdown asks it to
/// stop, and the group waits for its run to end (to write what it owes) before it stops the
/// services listed before it.
struct StoppableService: Service {
    let work: @Sendable () async -> Void
    let requestStop: @Sendable () -> Void

    func run() async {
        // Not the group's child: a cancelled group (its shutdown took too long, or a service
        // failed) asks for a stop rather than cutting the last write short (the database
        // refuses a cancelled task's write). It ends with the work's stop, awaited here.
        let running = Task { await work() }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await running.value
            } onGracefulShutdown: {
                requestStop()
            }
        } onCancel: {
            requestStop()
        }
    }
}
