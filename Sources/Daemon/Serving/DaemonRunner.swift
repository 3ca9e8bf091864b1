import Adapters
import FoundationEssentials
import Hummingbird
import Logging
import SecureSignals
import ServiceLifecycle
import StateStore

#if canImport(Glibc)
    import Glibc
#endif

/// Serves the daemon: logging, the configuration, the application built from it, and then what
/// only a running process does (the socket, systemd's notifications, signals), until SIGTERM or
/// SIGINT drains it.
public enum DaemonRunner {
    /// Exit status for a bad configuration (sysexits' EX_CONFIG).
    public static let configurationErrorStatus: Int32 = 78

    /// `testbed` installs `POST /testbed/clock` (`{"advance_ms": N}`), which moves the daemon's
    /// clock forward: for the testbed daemon's tests of expiry, retries and caches only.
    public static func run(_ options: DaemonOptions, registry: AdapterRegistry, testbed: Bool = false)
        async throws -> Int32
    {
        let flagLevel = options.logLevel.flatMap(Logger.Level.init(rawValue:))
        let level = LogLevelSetting(flagLevel ?? .info)
        let format = options.logFormat.resolved()
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, format: format, setting: level) }
        let logger = Logger(label: "secure-signalsd")

        let configuration: ResolvedConfiguration
        let application: DaemonApplication
        do {
            configuration = try ResolvedConfiguration.load(
                file: options.config, socket: options.socket, registry: registry)
            if options.checkConfig {
                try await StateDatabase.check(path: configuration.stateDatabasePath)
                try StateDatabase.checkWritable(path: configuration.stateDatabasePath)
                print(configuration.summary)
                return 0
            }
            if options.printConfig {
                print(try configuration.printedConfiguration(logLevel: flagLevel))
                return 0
            }
            level.level = flagLevel ?? configuration.logLevel ?? .info
            let needed = configuration.limits.maxConnections + Limits.descriptorsKept
            if let soft = OpenFileLimit.raise(to: max(needed, Limits.descriptorsWanted)), soft < needed {
                logger.warning(
                    "the open-file limit could not be raised to what limits.max_connections needs",
                    metadata: ["soft_limit": "\(soft)", "needed": "\(needed)"])
            }
            try configuration.makeDirectories()
            let metrics = DaemonMetrics()
            metrics.bootstrapProcessBackend()
            application = try await DaemonApplication(
                configuration: configuration, registry: registry, logger: logger, metrics: metrics, testbed: testbed)
        } catch {
            // One line per error, each naming its key, so that all of them can be fixed at once.
            let lines = ConfigurationErrors.of(error)?.map(\.description) ?? ["\(error)"]
            let priority = format == .journald ? "<3>" : ""
            StandardError.write(lines.map { "\(priority)secure-signalsd: \($0)\n" }.joined())
            return configurationErrorStatus
        }
        await application.restore()
        do {
            try await serve(
                application, configuration: configuration, options: options, registry: registry, level: level,
                reapInterval: testbed ? .milliseconds(200) : .seconds(10), logger: logger)
        } catch let failure as SocketBindFailure {
            // The service group stopped the rest (the adapters with it) before it threw.
            let priority = format == .journald ? "<3>" : ""
            StandardError.write("\(priority)secure-signalsd: \(failure)\n")
            return configurationErrorStatus
        }
        logger.notice("stopped")
        return 0
    }

    /// Runs the socket API and the services around it until a graceful shutdown ends them;
    /// orphans adopted as their subreaper are reaped every `reapInterval` (the testbed's is
    /// short, so that its tests see it happen).
    static func serve(
        _ application: DaemonApplication, configuration: ResolvedConfiguration, options: DaemonOptions,
        registry: AdapterRegistry, level: LogLevelSetting, reapInterval: Duration, logger: Logger
    ) async throws {
        let notifier = SystemdNotifier()
        unsetenv("NOTIFY_SOCKET")  // for this process alone, not its children
        Descendants.becomeSubreaper(logger: logger)
        let listening = AsyncStream<Void>.makeStream()
        let server = try SocketServer.make(
            for: application, configuration: configuration, logger: logger,
            onListening: { listening.continuation.yield() })
        let reloader = ReloadService(
            file: options.config, socket: options.socket, registry: registry, application: application,
            level: options.logLevel == nil ? level : nil, notifier: notifier, logger: logger)
        let readiness = ReadinessService(
            application: application, listening: listening.stream, notifier: notifier, logger: logger)
        // Services stop in reverse order: the socket API drains first, then the application's
        // pieces in their stopping order, then what adapter programs left behind (`Descendants`).
        let grace = configuration.collector.adapters.compactMap(\.program?.stopGrace).max() ?? .seconds(3)
        let leftovers = ShutdownStep("leftover processes") { await Descendants.stopAll(grace: grace, logger: logger) }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: OrderedShutdown(steps: application.stoppingOrder + [leftovers]),
                successTerminationBehavior: .ignore, serviceName: "application"),
            .init(service: server, serviceName: "socket API"),
            .init(service: readiness, successTerminationBehavior: .ignore, serviceName: "readiness"),
            .init(service: reloader, successTerminationBehavior: .ignore, serviceName: "reload on SIGHUP"),
        ]
        if let listener = configuration.metricsListener {
            services.append(
                .init(
                    service: LoopbackServer.make(listener: listener, application: application, logger: logger),
                    serviceName: "loopback listener"))
        }
        // SECURE_SIGNALS_MALLOC_TRIM_S=0 turns the trim off, to measure what it does.
        let trim =
            ProcessInfo.processInfo.environment["SECURE_SIGNALS_MALLOC_TRIM_S"].flatMap(Int.init)
            .map { Duration.seconds($0) } ?? MemoryTrim.defaultInterval
        if trim > .zero {
            services.append(
                .init(
                    service: PeriodicService(interval: trim, clock: ContinuousClock(), work: MemoryTrim.release),
                    successTerminationBehavior: .ignore, serviceName: "memory trim"))
        }
        let watch = StateWatch(database: application.database, trackers: application.trackers, logger: logger)
        services.append(
            .init(
                service: PeriodicService(interval: .seconds(1), clock: ContinuousClock()) { [watch] in
                    await watch.check()
                },
                successTerminationBehavior: .ignore, serviceName: "state database watch"))
        services.append(
            .init(
                service: PeriodicService(interval: reapInterval, clock: ContinuousClock()) {
                    Descendants.reapAdopted()
                },
                successTerminationBehavior: .ignore, serviceName: "orphan reaper"))
        if let interval = notifier.watchdogInterval {
            services.append(
                .init(
                    service: WatchdogService(notifier: notifier, interval: interval),
                    successTerminationBehavior: .ignore, serviceName: "watchdog"))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(15)
        try await ServiceGroup(configuration: groupConfiguration).run()
    }
}
