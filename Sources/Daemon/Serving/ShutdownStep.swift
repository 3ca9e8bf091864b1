import ServiceLifecycle
import Timing

/// One piece the daemon stops at shutdown. `DaemonApplication.stoppingOrder` lists them in the
/// order they stop; `OrderedShutdown` runs them in the daemon's service group, and in-process
/// tests call `DaemonApplication.shutdown`, which stops them in the same order.
struct ShutdownStep: Sendable {
    let name: String
    /// The piece's work, for one that runs until asked to stop (the tracker queue).
    let running: (@Sendable () async -> Void)?
    /// Stops the piece and returns once it has (its run ended, for one that runs).
    let stop: @Sendable () async -> Void

    init(
        _ name: String, running: (@Sendable () async -> Void)? = nil, stop: @escaping @Sendable () async -> Void
    ) {
        self.name = name
        self.running = running
        self.stop = stop
    }
}

/// The application's pieces as one service of the daemon's group: it runs those that run (the
/// tracker queue, the event journal's writer) and, at the shutdown or when the group is
/// cancelled (its shutdown took too long, or a service failed), stops every piece in order,
/// one after the other. Neither the runs nor the stops are cut short by a cancellation: the
/// database refuses a cancelled task's write, and an order kept only when all goes well is no
/// order.
struct OrderedShutdown: Service {
    let steps: [ShutdownStep]

    func run() async {
        await withDiscardingTaskGroup { group in
            for step in steps {
                if let work = step.running { group.addTask { await uncancelled(work) } }
            }
            try? await gracefulShutdown()
            await uncancelled { [steps] in
                for step in steps { await step.stop() }
            }
        }
    }
}
