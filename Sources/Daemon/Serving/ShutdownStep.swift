import ServiceLifecycle

/// One piece the daemon stops at shutdown. `DaemonApplication.stoppingOrder` lists them in the
/// order they stop: the daemon's service group runs each as a service (`service`) and stops
/// them in that order; in-process tests call `DaemonApplication.shutdown`, which stops them in
/// the same order.
struct ShutdownStep: Sendable {
    let name: String
    /// The piece's work, for one that runs until asked to stop (the tracker queue): the
    /// service runs it, and asks it to stop at the shutdown.
    let running: (work: @Sendable () async -> Void, requestStop: @Sendable () -> Void)?
    /// Stops the piece and returns once it has (after its run ended, for one that runs).
    let stop: @Sendable () async -> Void

    init(
        _ name: String, running: (work: @Sendable () async -> Void, requestStop: @Sendable () -> Void)? = nil,
        stop: @escaping @Sendable () async -> Void
    ) {
        self.name = name
        self.running = running
        self.stop = stop
    }

    /// The piece as a service of the daemon's group.
    var service: ServiceGroupConfiguration.ServiceConfiguration {
        let stop = self.stop
        let service: any Service =
            if let running {
                StoppableService(work: running.work, requestStop: running.requestStop, then: stop)
            } else {
                StopAtShutdown(stop: stop)
            }
        return .init(service: service, successTerminationBehavior: .ignore, serviceName: name)
    }
}

/// A piece with nothing to run: it waits for the shutdown, then stops.
private struct StopAtShutdown: Service {
    let stop: @Sendable () async -> Void

    func run() async {
        try? await gracefulShutdown()
        await stop()
    }
}
