import ServiceLifecycle
import Timing

/// A piece whose work is a `run()` that lasts until it is asked to stop (the tracker queue,
/// the event journal's writer), in the daemon's service group: a graceful shutdown asks it to
/// stop, and the group waits for its run to end (to write what it owes) before it stops the
/// services listed before it.
struct StoppableService: Service {
    let work: @Sendable () async -> Void
    let requestStop: @Sendable () -> Void
    /// What follows the run's end (the event journal gives back the numbers it reserved).
    var then: @Sendable () async -> Void = {}

    func run() async {
        // A cancelled group (its shutdown took too long, or a service failed) asks for a stop
        // rather than cutting the last write short (the database refuses a cancelled task's
        // write): the work is not cancelled, and ends with its stop.
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await uncancelled(work)
            } onGracefulShutdown: {
                requestStop()
            }
        } onCancel: {
            requestStop()
        }
        await then()
    }
}
