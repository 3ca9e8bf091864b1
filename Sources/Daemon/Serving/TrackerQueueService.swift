import Mediation
import ServiceLifecycle

/// The tracker queue in the daemon's service group: it sends what the daemon owes while the
/// socket API runs and, after the socket API has drained (services stop in reverse order),
/// writes what is still owed for the next start.
struct TrackerQueueService: Service {
    let queue: TrackerQueue

    func run() async {
        await withGracefulShutdownHandler {
            await queue.run()
        } onGracefulShutdown: {
            queue.requestStop()
        }
    }
}
