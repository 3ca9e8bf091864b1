import Consent
import FoundationEssentials
import Logging
import Metrics
import SharedTypes
import Timing

/// The daemon's ads: loads through each unit's waterfall (a load of a unit already loading
/// joins it; a ready ad is handed out again until used, unless forced), background retries of
/// failed loads with backoff 2^min(6, attempt) s, expiry, and each ad's lifecycle, with
/// impressions and clicks counted once and a rewarded ad's events in order.
public actor AdStore<C: Clock & Sendable> where C.Duration == Duration {
    public typealias LoadResult = Result<MediatedAd, AdLoadFailure>

    let clock: C
    let origin: C.Instant
    var units: [String: AdUnit]
    var networks: [String: NetworkHost]
    let registry: AdNetworkRegistry
    let services: AdNetworkServices
    let logger: Logger
    /// Failed loads and sources at `info` (once per unit in 10 s), every load at `debug`.
    let loadLog: AdLoadLog<C>
    public nonisolated let events: EventHub
    let metrics: AdMetrics
    /// Where earned rewards are committed before `reward_earned` is published.
    let rewards: any RewardLedger
    /// Signs the SSV callbacks of units that have one; nil when no signing key is configured.
    let callbackSigner: (any RewardCallbackSigner)?
    /// Wall-clock time on `clock`, for what is kept across restarts (a reward's time).
    let wallClock: WallClock<C>
    /// Where the impressions that frequency caps count are kept across restarts.
    let impressionLog: any ImpressionLog
    /// Those impressions, per unit and app: what a load is capped by.
    var impressions: ImpressionHistory
    /// The impressions counted while each reload under way (by its number) reads the log
    /// again: its answer may have been read before they were written, and must not forget them.
    var countedDuringReload: [Int: [CappedImpression]] = [:]
    /// The last reload's number.
    var nextReload = 0

    /// The ads held, and when each leaves.
    var ads: AdRetention
    /// Each unit's ready ad, per app.
    var readyAd: [LoadKey: String] = [:]
    /// Each unit's load under way per app, the policy it began under (a load begun under
    /// another privacy state is not joined), and its number: a load that ends removes its own
    /// entry, never a later load's.
    var inFlight: [LoadKey: (task: Task<LoadResult, Never>, policy: ConsentPolicy, number: Int)] = [:]
    /// How many loads have started: the number of the next.
    var loadsStarted = 0
    var retryAttempts: [LoadKey: Int] = [:]
    /// When each waiting retry loads; its task (`retryTimers`, by the same key) sleeps until then.
    var retries: [LoadKey: C.Instant] = [:]
    let retryTimers = OwnedTasks<LoadKey>()
    /// The ads whose reward is being committed, and the presentation calls waiting for it: an
    /// ad's events keep their order while the ledger syncs, and no other ad waits.
    var rewardCommits: [String: [CheckedContinuation<Void, Never>]] = [:]
    /// The privacy decisions in force for every app.
    var policies = PrivacyPolicies.unset

    /// `metrics`: where the ad events and load latencies are counted (the process's backend
    /// unless a caller gives one); `maxStoredAds`: the most ads held at once. The impressions
    /// the units' caps still count are read from `impressions` now.
    public init(
        units: [AdUnit], networks: [AdNetworkConfiguration], registry: AdNetworkRegistry,
        services: AdNetworkServices, rewards: any RewardLedger, impressions: any ImpressionLog,
        callbackSigner: (any RewardCallbackSigner)? = nil, clock: C, wallTimeAtStart: Int64? = nil, logger: Logger,
        events: EventHub = EventHub(), metrics: any MetricsFactory = MetricsSystem.factory, maxStoredAds: Int = 2000
    ) async throws(AdLoadError) {
        let wallClock = wallTimeAtStart.map { WallClock(clock: clock, start: $0) } ?? WallClock(clock: clock)
        let history = await Self.history(
            in: impressions, units: units, now: wallClock.nowMilliseconds, logger: logger)
        self.clock = clock
        self.rewards = rewards
        self.callbackSigner = callbackSigner
        self.wallClock = wallClock
        self.impressionLog = impressions
        self.impressions = history
        self.ads = AdRetention(
            capacity: maxStoredAds, byteCapacity: services.limits.maximumStoredAdBytes, bids: services.bids)
        self.metrics = AdMetrics(factory: metrics)
        self.origin = clock.now
        self.services = services
        self.logger = logger
        self.loadLog = AdLoadLog(logger: logger, clock: clock)
        self.events = events
        self.registry = registry
        self.networks = try Self.hosts(
            networks, keeping: [:], registry: registry, services: services, logger: logger)
        self.units = Dictionary(units.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
    }

    /// The impressions `log` keeps that `units`' caps still count at `now`; it forgets the rest.
    /// A log that cannot be read leaves the caps counting from zero, said in the log: serving
    /// goes on.
    static func history(in log: any ImpressionLog, units: some Collection<AdUnit>, now: Int64, logger: Logger)
        async -> ImpressionHistory
    {
        // No unit capped: nothing counts, everything is forgotten.
        let since = units.map { $0.capping.earliestCounted(at: now) }.min() ?? now + 1
        do {
            return ImpressionHistory(try await log.impressions(since: since), now: now)
        } catch {
            logger.error(
                "the impressions that frequency caps count could not be read from the state database; the caps count from zero",
                metadata: ["error": "\(error)"])
            return ImpressionHistory()
        }
    }

    /// A host per network: the one in `current` when its configuration is unchanged (it stays
    /// set up), else a new one.
    private static func hosts(
        _ networks: [AdNetworkConfiguration], keeping current: [String: NetworkHost], registry: AdNetworkRegistry,
        services: AdNetworkServices, logger: Logger
    ) throws(AdLoadError) -> [String: NetworkHost] {
        var hosts: [String: NetworkHost] = [:]
        for network in networks {
            if let host = current[network.name], host.configuration == network {
                hosts[network.name] = host
                continue
            }
            guard let type = registry.type(named: network.name) else {
                throw AdLoadError(.invalidRequest, "no ad network named '\(network.name)'")
            }
            hosts[network.name] = NetworkHost(configuration: network, type: type, services: services, logger: logger)
        }
        return hosts
    }

    /// Takes a reloaded configuration (SIGHUP): new and changed ad units and networks apply to
    /// the next load; unchanged networks stay set up; new ones are set up now unless lazy.
    /// Loads under way finish with what they started with; loaded ads stay usable.
    public func reload(units: [AdUnit], networks: [AdNetworkConfiguration]) async throws(AdLoadError) {
        let hosts = try Self.hosts(
            networks, keeping: self.networks, registry: registry, services: services, logger: logger)
        let fresh = hosts.filter { name, host in self.networks[name] !== host && !host.isLazy }.map(\.value)
        self.networks = hosts
        self.units = Dictionary(units.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        // The caps may have changed: what they count now is read again, with what was counted
        // meanwhile (the store answers calls while the log is read).
        // Each reload under way has its own list (two may overlap).
        nextReload += 1
        let reload = nextReload
        countedDuringReload[reload] = []
        let now = wallClock.nowMilliseconds
        var history = await Self.history(in: impressionLog, units: self.units.values, now: now, logger: logger)
        history.takeUp(countedDuringReload.removeValue(forKey: reload) ?? [], caps: self.units, readAt: now)
        impressions = history
        for key in retries.keys where self.units[key.unit] == nil {
            retryTimers.cancel(key)
            retries[key] = nil
        }
        for host in fresh { await host.beginSetup() }
    }

    var now: Duration { origin.duration(to: clock.now) }

    /// Stops retrying failed loads, cancels the loads under way (each line item answers at
    /// once, as timed out, and what it owes is settled) and returns once none runs: what a load
    /// owes reaches the tracker queue before it stops.
    public func shutdown() async {
        await retryTimers.cancelAll()
        let loads = inFlight.values.map(\.task)
        for load in loads { load.cancel() }
        for load in loads { _ = await load.value }
    }

    // MARK: - Networks

    /// Starts setting up every network that is not lazy, all at once; returns at once
    /// (`networksSettle` waits for them).
    public func beginNetworkSetup() async {
        for host in networks.values where !host.isLazy { await host.beginSetup() }
    }

    /// Sets up every network that is not lazy, all at once.
    public func initializeNetworks() async {
        let eager = networks.values.filter { !$0.isLazy }
        await withTaskGroup(of: Void.self) { group in
            for host in eager { group.addTask { _ = await host.ready() } }
        }
    }

    public func networkStatuses() async -> [AdapterStatus] {
        var statuses: [AdapterStatus] = []
        for name in networks.keys.sorted() {
            if let host = networks[name] { statuses.append(await host.status) }
        }
        return statuses
    }

    /// Returns once every network is set up or failed (lazy ones not yet used count as settled).
    public func networksSettle() async {
        for host in networks.values { await host.settled() }
    }

    public var networksSettled: Bool {
        get async {
            for host in networks.values where !(await host.isSettled) { return false }
            return true
        }
    }

    /// Puts the privacy decisions of every app in force (`PrivacyPolicies.unset`: no consent
    /// anywhere). An unused ad loaded under a decision its app's new state reverses (its line
    /// item is now denied, or its serving mode differs) is dropped: it is not shown under a
    /// state that would not have loaded it.
    public func setPrivacy(_ policies: PrivacyPolicies) {
        let old = self.policies
        self.policies = policies
        let now = wallClock.nowMilliseconds
        let dropped = ads.dropUnused { ad in
            policies.changed(for: ad.owner?.id, from: old, at: now) && !fits(ad.fill, for: ad.owner?.id)
        }
        guard dropped > 0 else { return }
        metrics.droppedForPrivacy(dropped)
        logger.info(
            "unused ads dropped: the privacy state changed what they were loaded under",
            metadata: ["count": "\(dropped)"])
    }

    /// Whether `fill` is what a load for app `id` under its privacy state in force could have
    /// loaded now: its line item allowed, in the same serving mode.
    func fits(_ fill: Waterfall.Fill, for id: String?) -> Bool {
        let policy = policies.policy(for: id, at: wallClock.nowMilliseconds)
        return policy.decide(fill.consent).isAllowed
            && policy.servingMode(vendor: fill.consent.vendorID) == fill.info.servingMode
    }

    /// Queues an ad's trackers, their macros filled now.
    func fire(_ urls: [String], of ad: LoadedAd, kind: TrackerQueue.Kind) {
        guard !urls.isEmpty else { return }
        services.trackers.enqueue(urls.map { ad.fill.ad.trackerMacros($0, nil) }, kind: kind)
    }

    /// Counts an ad's event and hands it to the event stream's subscribers.
    /// `ad`'s event `name`; a test ad's says `"test": true`, for analytics to leave it out.
    func publish(_ name: AdEvent.Name, _ ad: LoadedAd, _ fields: [String: EventField] = [:]) {
        metrics.count(name, unit: ad.unit.id)
        var fields = fields
        if ad.test { fields["test"] = .bool(true) }
        events.publish(AdEvent(name: name, adID: ad.id, adUnit: ad.unit.id, app: ad.owner?.id, fields: fields))
    }

    /// How many of a unit's latest loads keep their ads while unused (`AdRetention`).
    public static var unusedAdsKeptPerUnit: Int { AdRetention.unusedKeptPerUnit }

    /// How many ads the store holds, expired ones included.
    var storedAds: Int { ads.count }
}
