import Adapters
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Mediation
import NIOCore
import SecureSignals
import ServiceLifecycle
import Timing
import UnixSignals

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the daemon: configuration, the collector, the socket API and its systemd integration,
/// until SIGTERM or SIGINT drains it.
public enum DaemonRunner {
    /// Exit status for a bad configuration (sysexits' EX_CONFIG).
    public static let configurationErrorStatus: Int32 = 78

    /// `clockControl` installs `POST /testbed/clock` (`{"advance_ms": N}`), which moves the ad
    /// store's clock forward: for the testbed daemon's tests of expiry and retries only.
    public static func run(_ options: DaemonOptions, registry: AdapterRegistry, clockControl: Bool = false)
        async throws -> Int32
    {
        let level = Logger.Level(rawValue: options.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "secure-signalsd")

        var configuration: ResolvedConfiguration
        do {
            configuration = try loadConfiguration(file: options.config, socket: options.socket, registry: registry)
        } catch {
            FileHandle.standardError.write(Data("secure-signalsd: \(error)\n".utf8))
            return configurationErrorStatus
        }
        if options.checkConfig {
            print(configuration.summary)
            return 0
        }

        let notifier = SystemdNotifier()
        unsetenv("NOTIFY_SOCKET")  // for this process alone, not its children
        let metrics = DaemonMetrics()
        let adClock = AdjustableClock()
        let collector = try SignalCollector(
            configuration: configuration.collector, registry: registry, clock: adClock, logger: logger)
        let ads: AdStore<AdjustableClock>
        let fetcher = HTTPAdFetcher()
        let trackers = TrackerQueue(fetcher: fetcher, logger: logger)
        do {
            ads = try AdStore(
                units: configuration.mediation.units, networks: configuration.mediation.networks,
                registry: BuiltinAdNetworks.registry,
                services: AdNetworkServices(fetcher: fetcher, trackers: trackers, signals: collector),
                clock: adClock, logger: logger
            )
        } catch {
            FileHandle.standardError.write(Data("secure-signalsd: \(error)\n".utf8))
            return configurationErrorStatus
        }
        let state = DaemonState(collector: collector, ads: ads, access: configuration.access, logger: logger)

        let router = Router(context: DaemonRequestContext.self)
        router.addMiddleware { ErrorAndMetricsMiddleware(metrics: metrics) }
        router.addMiddleware { AccessMiddleware(state: state) }
        Routes.install(on: router, state: state, metrics: metrics)
        if clockControl { TestbedRoutes.installClock(on: router, clock: adClock, logger: logger) }

        let listening = AsyncStream<Void>.makeStream()
        let server: any Service
        if let descriptor = SocketActivation.takeListeningDescriptor() {
            logger.notice("serving the socket systemd handed over", metadata: ["fd": "\(descriptor)"])
            server = ActivatedSocketServer(
                descriptor: descriptor, responder: router.buildResponder(), logger: logger,
                onListening: { listening.continuation.yield() })
        } else {
            try prepareSocketPath(configuration.socketPath)
            let path = configuration.socketPath
            let mode = configuration.socketMode
            let group = configuration.socketGroup
            server = Application(
                router: router,
                server: .http1WithPeerCredentials(
                    configuration: HTTP1Channel.Configuration(idleTimeout: .seconds(120))),
                configuration: ApplicationConfiguration(address: .unixDomainSocket(path: path), serverName: nil),
                onServerRunning: { _ in
                    if chmod(path, mode) != 0 {
                        logger.error("cannot set the socket's mode", metadata: ["errno": "\(errno)"])
                    }
                    if let group, chown(path, uid_t.max, group) != 0 {
                        logger.error(
                            "cannot set the socket's group; is the daemon a member of it?",
                            metadata: ["group": "\(group)", "errno": "\(errno)"])
                    }
                    logger.notice("listening", metadata: ["socket": "\(path)"])
                    listening.continuation.yield()
                },
                logger: logger)
        }

        let reloader = ReloadService(
            file: options.config, socket: options.socket, registry: registry, state: state, notifier: notifier,
            logger: logger)
        let readiness = ReadinessService(
            collector: collector, ads: ads, listening: listening.stream, notifier: notifier, logger: logger)
        // Services stop in reverse order: the adapters (and their programs) last, once the
        // socket API has drained.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: AdapterShutdownService(collector: collector, trackers: trackers),
                successTerminationBehavior: .ignore,
                serviceName: "adapters"),
            .init(service: server, serviceName: "socket API"),
            .init(service: readiness, successTerminationBehavior: .ignore, serviceName: "readiness"),
            .init(service: reloader, successTerminationBehavior: .ignore, serviceName: "reload on SIGHUP"),
        ]
        if let interval = notifier.watchdogInterval {
            services.append(
                .init(
                    service: WatchdogService(notifier: notifier, interval: interval),
                    successTerminationBehavior: .ignore, serviceName: "watchdog"))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(15)
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
        logger.notice("stopped")
        return 0
    }

    /// The configuration file (or the embedded default), with the socket path overridden.
    static func loadConfiguration(file: String?, socket: String?, registry: AdapterRegistry) throws
        -> ResolvedConfiguration
    {
        var configuration =
            try file.map { try ResolvedConfiguration.load(file: $0, registry: registry) }
            ?? ResolvedConfiguration.embeddedDefault(registry: registry)
        if let socket {
            configuration.socketPath =
                socket.hasPrefix("/") ? socket : FileManager.default.currentDirectoryPath + "/" + socket
            guard configuration.socketPath.utf8.count < 108 else {
                throw ConfigurationError(
                    file: "--socket", path: "",
                    reason: "\(configuration.socketPath.utf8.count) bytes long; a Unix socket path must be under 108")
            }
        }
        return configuration
    }

    /// Makes the socket's directory, and refuses to take over a socket a live daemon listens on.
    static func prepareSocketPath(_ path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        guard FileManager.default.fileExists(atPath: path) else { return }
        if UnixSocketAddress.isListening(path) {
            throw ConfigurationError(file: path, path: "", reason: "another daemon listens on this socket")
        }
    }
}

/// Sends READY=1 once the socket listens and every adapter has finished initializing, or 10 s
/// after start, whichever comes first (late adapters go on initializing); then STOPPING=1 at
/// shutdown. A shutdown that comes first sends no READY=1.
struct ReadinessService: Service {
    let collector: SignalCollector<AdjustableClock>
    let ads: AdStore<AdjustableClock>
    let listening: AsyncStream<Void>
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        let collector = self.collector
        let start = ContinuousClock.now
        let ads = self.ads
        let initialization = Task {
            async let signals: Void = collector.initializeAll()
            async let networks: Void = ads.initializeNetworks()
            _ = await (signals, networks)
        }
        let listening = self.listening
        @Sendable func settled() async -> Bool {
            let signals = await collector.isSettled
            let networks = await ads.networksSettled
            return signals && networks
        }
        await cancelWhenGracefulShutdown {
            for await _ in listening.prefix(1) {}
            _ = await withTimeout(.seconds(10)) { await initialization.value }
            // Adapters past their own init timeout are still initializing: wait for them too, up to 10 s.
            while !Task.isCancelled, ContinuousClock.now - start < .seconds(10), !(await settled()) {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        if !Task.isShuttingDownGracefully {
            let statuses = await collector.statuses() + ads.networkStatuses()
            let ready = statuses.filter { $0.state == .ready }.count
            let status = "\(ready) of \(statuses.count) adapters ready"
            if !(await settled()) { logger.warning("ready before every adapter finished initializing") }
            notifier.notify("READY=1\nSTATUS=serving; \(status)")
            logger.notice("ready", metadata: ["adapters": "\(status)"])
            try? await gracefulShutdown()
        }
        notifier.notify("STOPPING=1\nSTATUS=draining in-flight requests")
    }
}

/// Reloads configuration and keys on SIGHUP, without dropping connections.
struct ReloadService: Service {
    let file: String?
    let socket: String?
    let registry: AdapterRegistry
    let state: DaemonState
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                await reload()
            }
        }
    }

    func reload() async {
        notifier.notify("RELOADING=1\nSTATUS=reloading configuration and keys")
        do {
            let configuration = try DaemonRunner.loadConfiguration(file: file, socket: socket, registry: registry)
            try await state.collector.reload(configuration.collector)
            try await state.ads.reload(
                units: configuration.mediation.units, networks: configuration.mediation.networks)
            state.access = configuration.access
            logger.notice("reloaded configuration and keys", metadata: ["source": "\(configuration.source)"])
            notifier.notify("READY=1\nSTATUS=serving; configuration reloaded")
        } catch {
            logger.error("reload failed; keeping the running configuration", metadata: ["error": "\(error)"])
            notifier.notify("READY=1\nSTATUS=serving; reload failed: \(error)")
        }
    }
}

/// Stops every adapter at shutdown, after the socket API: adapter programs get SIGTERM, then
/// SIGKILL after their grace period, and are reaped before the daemon exits. Trackers already
/// queued get up to two seconds to be fired: an impression recorded is not lost to a restart.
struct AdapterShutdownService: Service {
    let collector: SignalCollector<AdjustableClock>
    let trackers: TrackerQueue

    func run() async throws {
        try? await gracefulShutdown()
        async let drained: Void = { _ = await withTimeout(.seconds(2)) { await trackers.drain() } }()
        await collector.shutdown()
        await drained
    }
}

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
