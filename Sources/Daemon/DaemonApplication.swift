import API
import Adapters
import Hummingbird
import Inspector
import Logging
import Mediation
import SecureSignals
import StateStore
import Timing

/// The daemon made from one configuration: the signal collector and the ad store on one clock,
/// the tracker queue, the recipients' key refresher, and the socket API's responder. Making it reads the files the
/// configuration names and nothing else (no socket, no systemd, no signals): `DaemonRunner`
/// serves it, and the route tests run it in-process.
struct DaemonApplication: Sendable {
    let state: DaemonState
    /// The clock of the collector's caches, breakers and timeouts and the ad store's schedules;
    /// only the testbed's moves.
    let clock: AdjustableClock
    let trackers: TrackerQueue
    /// `state.sqlite`: the outbox, the ledger, the journal and the capped impressions.
    let database: StateDatabase
    /// Keeps the URL recipients' key sets current.
    let recipientKeys: RecipientKeyRefresher
    let metrics: DaemonMetrics
    /// The limits in force and what clients hold of them.
    let limits: ClientLimits
    /// The router wrapped in `RouteMiddleware`: what a server hands every request.
    let responder: CallbackResponder<DaemonRequestContext>
    /// Every route the router holds.
    let routes: RouteIndex
    /// `advertising_id` as the daemon started with it: a reload keeps it.
    let advertisingID: AdvertisingIDSettings?

    /// `testbed` adds `POST /testbed/clock`, for the testbed daemon's tests only (whose clock
    /// real time moves too unless `testbedClockRuns` is false). The URL
    /// recipients' stored key sets are put in force here; fetching starts with `initialize`.
    init(
        configuration: ResolvedConfiguration, registry: AdapterRegistry, logger: Logger,
        metrics: DaemonMetrics = DaemonMetrics(), testbed: Bool = false, testbedClockRuns: Bool = true,
        keyFetcher: any KeySetFetching = HTTPKeySetFetcher()
    ) async throws {
        let clock = AdjustableClock(adjustable: testbed, runs: !testbed || testbedClockRuns)
        let fetcher = HTTPAdFetcher()
        let database = try await StateDatabase.open(path: configuration.stateDatabasePath)
        let rewards = SQLiteRewardLedger(database, retention: configuration.rewardRetention)
        let trackers = TrackerQueue(
            fetcher: fetcher, outbox: SQLiteTrackerOutbox(database), clock: WallClock(clock: clock),
            settings: configuration.trackers, logger: logger, metrics: metrics.factory)
        let inspector = TraceRing(limits: configuration.inspect)
        let collector = try SignalCollector(
            configuration: configuration.collector, registry: registry, clock: clock, logger: logger,
            metrics: metrics.factory, tracer: inspector)
        let events = await EventHub(
            journal: SQLiteEventJournal(database), retention: configuration.eventRetention,
            clock: WallClock(clock: clock), logger: logger)
        let ads = try await AdStore(
            units: configuration.mediation.units, networks: configuration.mediation.networks,
            registry: BuiltinAdNetworks.registry,
            services: AdNetworkServices(
                fetcher: fetcher, trackers: trackers, signals: collector, metrics: metrics.factory,
                limits: configuration.limits.content,
                advertisingIDs: configuration.advertisingID.map {
                    AdvertisingIDProvider(settings: $0, clock: clock, logger: logger)
                }, tracer: inspector),
            rewards: rewards, impressions: SQLiteImpressionLog(database),
            callbackSigner: configuration.ssvKey.map { SSVCallbackSigner(key: $0.key, keyID: $0.id, logger: logger) },
            clock: clock, logger: logger,
            events: events,
            metrics: metrics.factory, maxStoredAds: configuration.limits.maxStoredAds)
        self.state = DaemonState(
            collector: collector, ads: ads, access: configuration.access, warnings: configuration.warnings,
            privacy: configuration.privacy, stateHealth: database.health,
            privacyRecords: SQLitePrivacyRecords(database, clock: WallClock(clock: clock)), clock: clock,
            inspector: inspector, logger: logger)
        self.database = database
        for warning in configuration.warnings { logger.warning("\(warning)") }
        self.clock = clock
        self.trackers = trackers
        recipientKeys = RecipientKeyRefresher(
            recipients: configuration.collector.recipients,
            store: RecipientKeyStore(
                directory: configuration.collector.stateDirectory.appendingPathComponent("recipients")),
            fetcher: keyFetcher, clock: WallClock(clock: clock), logger: logger, metrics: metrics.factory)
        self.metrics = metrics
        advertisingID = configuration.advertisingID
        limits = ClientLimits(limits: configuration.limits, logger: logger, metrics: metrics.factory)
        (responder, routes) = Self.responder(
            state: state, limits: limits, trackers: trackers, rewards: rewards, clock: clock, metrics: metrics,
            testbedClock: testbed ? clock : nil)
    }

    /// Every route registered once, on one router; the index of what it holds is read from it.
    static func responder(
        state: DaemonState, limits: ClientLimits, trackers: TrackerQueue, rewards: any RewardLedger,
        clock: AdjustableClock, metrics: DaemonMetrics, testbedClock: AdjustableClock?
    ) -> (CallbackResponder<DaemonRequestContext>, RouteIndex) {
        let router = Router(context: DaemonRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: AccessMiddleware(state: state, metrics: metrics))
        router.add(middleware: FairShareMiddleware(limits: limits))
        let owed = OwedMiddleware(trackers: trackers, health: state.stateHealth)
        let endpoints = EndpointRouter(router: router, owed: owed)
        SignalRoutes(state: state).addRoutes(to: endpoints)
        AdRoutes(ads: state.ads, limits: limits).addRoutes(to: endpoints)
        RewardRoutes(rewards: rewards, clock: WallClock(clock: clock)).addRoutes(to: endpoints)
        AppRoutes(state: state, limits: limits).addRoutes(to: endpoints)
        InspectRoutes(inspector: state.inspector, limits: limits).addRoutes(to: endpoints)
        MetricsRoutes(metrics: metrics, state: state, trackers: trackers).addRoutes(to: router)
        if let testbedClock { TestbedRoutes(clock: testbedClock, logger: state.logger).addRoutes(to: router) }
        let routes = RouteIndex(router)
        let counting = RouteMiddleware(routes: routes, metrics: metrics)
        let responder = router.buildResponder()
        let wrapped = CallbackResponder<DaemonRequestContext> { request, context in
            try await counting.handle(request, context: context) { try await responder.respond(to: $0, context: $1) }
        }
        return (wrapped, routes)
    }

    /// Starts initializing every signal adapter and ad network, all at once, and refreshing
    /// recipients' keys; returns at once (`settle` waits for them, `shutdown` ends them).
    func beginInitializing() async {
        await recipientKeys.start()
        await state.collector.beginInitializing()
        await state.ads.beginNetworkSetup()
    }

    /// Puts in force what the state database keeps that decides requests (the privacy states):
    /// before the socket API answers its first request.
    func restore() async {
        await state.privacy.restore()
    }

    /// Initializes every signal adapter and ad network, all at once; returns when each is
    /// ready, failed or past its init timeout.
    func initialize() async {
        await recipientKeys.start()
        async let signals: Void = state.collector.initializeAll()
        async let networks: Void = state.ads.initializeNetworks()
        _ = await (signals, networks)
    }

    /// Whether every adapter and network has finished initializing (ready or failed).
    var isSettled: Bool {
        get async {
            let signals = await state.collector.isSettled
            let networks = await state.ads.networksSettled
            return signals && networks
        }
    }

    /// Returns once every adapter and network is ready or failed: what readiness waits for.
    func settle() async {
        await state.collector.settle()
        await state.ads.networksSettle()
    }

    /// What stops at shutdown, in the order it stops, once the socket API no longer answers:
    /// key refreshes; ad loads and retries (what a load owes reaches the tracker queue); the
    /// tracker queue, which writes what it still owes for the next start; the event journal;
    /// last the signal adapters, whose programs get their grace period and are reaped.
    var stoppingOrder: [ShutdownStep] {
        let (keys, ads, trackers, events, collector) =
            (recipientKeys, state.ads, trackers, state.ads.events, state.collector)
        return [
            ShutdownStep("key refresher", stop: keys.stop),
            ShutdownStep("ad loads and retries", stop: ads.shutdown),
            ShutdownStep("tracker queue", running: trackers.run, stop: trackers.drain),
            ShutdownStep("event journal", running: events.run, stop: events.close),
            ShutdownStep("signal adapters", stop: collector.shutdown),
        ]
    }

    /// Stops every piece in `stoppingOrder`, one after the other: in-process tests' shutdown
    /// (in the daemon, `OrderedShutdown` does).
    func shutdown() async {
        for step in stoppingOrder { await step.stop() }
    }

    /// Takes a reloaded configuration: adapters, networks, ad units and the access policy.
    func reload(_ configuration: ResolvedConfiguration) async throws {
        var collector = configuration.collector
        let running = await state.collector.stateDirectory
        // As paths: a URL made from "/var/lib/x" and one from "/var/lib/x/" differ.
        if collector.stateDirectory.standardizedFileURL.path != running.standardizedFileURL.path {
            // Made at start with its mode: adapters keep the one they were given.
            state.logger.notice("the new state_directory applies at the next start; a reload keeps the running one")
            collector.stateDirectory = running
        }
        // A URL recipient fetched the same way keeps its keys (and its refresh) across a
        // reload; one whose URL stays keeps at least what it fetched.
        let current = await state.collector.recipients
        for (name, recipient) in collector.recipients {
            guard let old = current[name] else { continue }
            if old.keys.fetchesLike(recipient.keys) {
                collector.recipients[name] = old
            } else if let url = old.keys.keyURL?.url, url == recipient.keys.keyURL?.url {
                recipient.keys.carryOver(from: old.keys)
            }
        }
        recipientKeys.restore(collector.recipients)
        try await state.collector.reload(collector)
        await recipientKeys.update(collector.recipients)
        try await state.ads.reload(units: configuration.mediation.units, networks: configuration.mediation.networks)
        state.access = configuration.access
        state.warnings = configuration.warnings
        state.inspector.limits = configuration.inspect
        await state.privacy.setSettings(configuration.privacy)
        for warning in configuration.warnings { state.logger.warning("\(warning)") }
        if configuration.advertisingID != advertisingID {
            state.logger.notice("the new advertising_id applies at the next start; a reload keeps the running one")
        }
        if configuration.limits != limits.limits {
            state.logger.notice("the new limits apply at the next start; a reload keeps the running ones")
        }
    }
}
