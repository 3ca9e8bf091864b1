import FoundationEssentials
import Logging
import Metrics
import SharedTypes
import Timing

/// One configured adapter for its whole life: creates it exactly once, keeps its state, init
/// latency, cache and circuit breaker, and asks it for signals under a timeout. Time is
/// `clock`'s: the cache's age, the breaker's cool-down, the timeouts.
///
/// The cache keeps a plaintext per scope key (`SignalScope`: one for a device adapter, one per
/// publisher or app otherwise) and privacy state: a request gets only one fetched for its own
/// key under its own state. At most `cacheCapacity` of them, the least recently used going
/// first, so that entries under states no request has any more cannot pile up.
actor AdapterHost<C: Clock> where C.Duration == Duration {
    /// The answer of one adapter to one request.
    enum Outcome: Sendable {
        case signal(Signal, cached: Bool, versions: Versions)
        case failure(SignalError)
    }

    struct Versions: Sendable {
        var adapter: SemanticVersion
        var sdk: SemanticVersion
    }

    /// What a cached plaintext is kept under: whom it is for (the adapter's scope key for the
    /// asking app) and the privacy state it was fetched under.
    struct CacheKey: Hashable, Sendable {
        var scope: String?
        var privacy: PrivacyState?
    }

    private struct Cached {
        var plaintext: [UInt8]
        var fetchedAt: C.Instant
        /// When it was last stored or served, in `uses`: the least recent goes first.
        var lastUsed: UInt64
    }

    /// How many plaintexts an adapter's cache keeps at most.
    static var cacheCapacity: Int { 64 }

    let name: String
    private let clock: C
    private let factory: AdapterFactory
    private var configuration: AdapterConfiguration
    private let logger: Logger
    private let metrics: CollectionMetrics

    private var state = AdapterState.initializing {
        didSet { if isSettled { resumeSettled() } }
    }
    /// Who waits for the adapter to be ready or failed (`settled()`).
    private var settledWaiters: [CheckedContinuation<Void, Never>] = []
    private var adapter: (any SignalSource)?
    private var initError: SignalError?
    private var initLatency: Duration?
    private var cache: [CacheKey: Cached] = [:]
    /// Counts stores and hits: each entry's `lastUsed`.
    private var uses: UInt64 = 0
    /// The keys whose refresh runs in the background: one at a time per key.
    private var refreshing: Set<CacheKey> = []
    /// The refresh in the background, while one runs; the stop cancels it.
    private let background = OwnedTasks<Never>()
    private var breaker: CircuitBreaker<C.Instant>
    private var isShutDown = false
    /// The adapter's creation, while it runs: a shutdown cancels it and stops what it made.
    private var creation: Task<Result<any SignalSource, any Error>, Never>?
    /// Bumped whenever cached signals become invalid (a reset), so that a
    /// collection that started before cannot cache its now stale answer.
    private var generation = 0

    init(
        configuration: AdapterConfiguration, factory: AdapterFactory, clock: C, logger: Logger,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.name = configuration.name
        self.clock = clock
        self.factory = factory
        self.configuration = configuration
        self.logger = logger
        self.metrics = CollectionMetrics(adapter: configuration.name, factory: metrics)
        self.breaker = CircuitBreaker(settings: configuration.circuitBreaker)
    }

    /// Creates the adapter. Returns when it is ready or failed, or at its init timeout; in
    /// the last case it goes on initializing and serves once ready.
    func initialize(context: AdapterContext) async {
        let clock = self.clock
        let start = clock.now
        let make = factory.make
        // Not a child of this call: an adapter past its init timeout goes on initializing, and
        // this task, which ends with its creation (or is stopped by `shutdown`), records it.
        let creation = Task {
            let result: Result<any SignalSource, any Error>
            do {
                result = .success(try await make(context))
            } catch {
                result = .failure(error)
            }
            self.finishInitialization(result, latency: start.duration(to: clock.now))
            return result
        }
        self.creation = creation
        // An adapter that enforces its own init timeout (a program) gets a moment more here,
        // so that its own, more precise reason is the one kept.
        let limit = configuration.initTimeout + (factory.enforcesInitTimeout ? .seconds(2) : .zero)
        if case .timedOut = await withTimeout(limit, clock: clock, operation: { _ = await creation.value }),
            state == .initializing
        {
            state = .timedOut
            logger.warning("adapter still initializing after its init timeout", metadata: ["adapter": "\(name)"])
        }
    }

    /// Returns once the adapter is ready or failed (at once if it is).
    func settled() async {
        guard !isSettled else { return }
        await withCheckedContinuation { settledWaiters.append($0) }
    }

    private func resumeSettled() {
        let waiters = settledWaiters
        settledWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    private func finishInitialization(_ result: Result<any SignalSource, any Error>, latency: Duration) {
        creation = nil
        guard !isShutDown else { return }  // `shutdown` stops whatever the creation made
        initLatency = latency
        switch result {
        case .success(let adapter):
            self.adapter = adapter
            state = .ready
            logger.info(
                "adapter ready",
                metadata: ["adapter": "\(name)", "init_ms": "\(milliseconds(latency))", "sdk": "\(adapter.sdkVersion)"])
        case .failure(let error):
            // The init error is kept as the adapter reported it and answered on every request.
            let failure = error as? SignalError ?? SignalError(.adapterInitFailed, String(describing: error))
            initError = failure
            state = .failed
            logger.error("adapter failed to initialize", metadata: ["adapter": "\(name)", "error": "\(failure)"])
        }
    }

    var status: AdapterStatus {
        get async {
            let program = await adapter?.programStatus()
            return AdapterStatus(
                name: name, kind: factory.kind.rawValue, state: state, description: description,
                initLatencyMilliseconds: initLatency.map(milliseconds),
                adapterVersion: adapter?.adapterVersion ?? factory.declaredVersion, sdkVersion: adapter?.sdkVersion,
                circuit: breaker.status(at: clock.now), program: program)
        }
    }

    private var description: String {
        switch state {
        case .initializing: return "initializing"
        case .ready: return "ready"
        case .failed: return initError?.description ?? "failed"
        case .timedOut:
            return "still initializing after its \(milliseconds(configuration.initTimeout)) ms init timeout"
        }
    }

    var isSettled: Bool { state == .ready || state == .failed }

    /// Takes the new limits and recipients of a reloaded configuration (same type and options).
    func update(_ configuration: AdapterConfiguration) {
        if configuration.cacheTTL != self.configuration.cacheTTL { cache = [:] }
        breaker.settings = configuration.circuitBreaker
        self.configuration = configuration
    }

    /// Stops the adapter (its program, if it has one); it answers no more requests.
    func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        state = .failed
        initError = SignalError(.sdkUnavailable, "adapter '\(name)' was stopped")
        metrics.circuitOpen(false)
        if let creation {
            // Still initializing: stop the creation, and whatever it made if it made it anyway.
            creation.cancel()
            if case .success(let made) = await creation.value { await made.shutdown() }
        }
        await background.cancelAll()
        await adapter?.shutdown()
    }

    /// Failed to initialize (and not stopped): a reload makes it anew rather than keep it.
    var hasFailed: Bool { state == .failed && !isShutDown }

    private func invalidateCache() {
        generation += 1
        cache = [:]
    }

    /// How many plaintexts the cache holds now.
    var cachedSignals: Int { cache.count }

    func reset() async throws(ResetFailure) {
        guard let adapter else { throw .notReady("adapter '\(name)' is not ready") }
        guard let resettable = adapter as? any ResettableSignalAdapter else {
            throw .unsupported("adapter '\(name)' cannot be reset")
        }
        invalidateCache()
        do {
            try await resettable.reset()
        } catch {
            throw .failed(String(describing: error))
        }
        invalidateCache()
        if breaker.isOpen {
            logger.notice("circuit closed: adapter reset", metadata: ["adapter": "\(name)"])
            metrics.circuitOpen(false)
        }
        breaker.close()
    }

    /// The adapter's signal for `request`, from the cache while it is fresh.
    func collect(_ request: SignalRequest, timeout: Duration) async -> Outcome {
        await answer(request, timeout: timeout).outcome
    }

    /// An answer as a trace shows it: the outcome, how long it took, and the circuit after it.
    struct Answer: Sendable {
        var outcome: Outcome
        var latency: Duration
        var circuit: CircuitStatus.State
    }

    /// `collect`'s answer with its latency and the circuit's state after it.
    func answer(_ request: SignalRequest, timeout: Duration) async -> Answer {
        let start = clock.now
        let outcome = await collectUnmeasured(request, timeout: timeout)
        let label: String
        switch outcome {
        case .signal(_, let cached, _): label = cached ? "cached" : "ok"
        case .failure(let error): label = error.code.rawValue
        }
        let end = clock.now
        let latency = start.duration(to: end)
        metrics.record(outcome: label, latency: latency)
        return Answer(outcome: outcome, latency: latency, circuit: breaker.status(at: end).state)
    }

    private func collectUnmeasured(_ request: SignalRequest, timeout: Duration) async -> Outcome {
        switch state {
        case .initializing, .timedOut:
            return .failure(SignalError(.sdkUnavailable, "adapter '\(name)' is still initializing"))
        case .failed:
            return .failure(initError ?? SignalError(.adapterInitFailed, "adapter '\(name)' failed to initialize"))
        case .ready:
            break
        }
        guard let adapter else { return .failure(SignalError(.sdkUnavailable, "adapter '\(name)' is not ready")) }
        let versions = Versions(adapter: adapter.adapterVersion, sdk: adapter.sdkVersion)
        let now = clock.now
        let key = CacheKey(scope: adapter.scope.key(for: request.app), privacy: request.privacy)
        if let entry = cache[key] {
            let age = entry.fetchedAt.duration(to: now)
            if age < configuration.cacheTTL {
                uses += 1
                cache[key]?.lastUsed = uses
                if age >= configuration.cacheTTL / 2, !breaker.isOpen { refreshInBackground(adapter, request, key) }
                return .signal(.plaintext(entry.plaintext), cached: true, versions: versions)
            }
            cache[key] = nil
        }
        // A caller with no time left: the adapter is not asked, and it is not its fault.
        guard timeout > .zero else { return .failure(SignalError(.timeout, "no time left to ask it")) }
        let decision = breaker.decide(at: now)
        if case .skip(let remaining) = decision {
            let retry =
                remaining > .zero
                ? "retrying in \(Int(milliseconds(remaining).rounded(.up))) ms" : "a trial request is under way"
            return .failure(
                SignalError(
                    .circuitOpen,
                    "skipped after \(breaker.consecutiveFailures) consecutive failures; \(retry)"))
        }
        let generation = self.generation
        let outcome = await withTimeout(timeout, clock: clock) { try await adapter.collectSignals(for: request) }
        let result: Outcome
        switch outcome {
        case .value(let signal):
            remember(signal, under: key, generation: generation, fetchedAt: now)
            // Versions as they are now: a restarted program may report new ones.
            result = .signal(
                signal, cached: false, versions: Versions(adapter: adapter.adapterVersion, sdk: adapter.sdkVersion))
        case .failure(let error):
            result = .failure(SignalError.from(error, fallback: .collectionFailed))
        case .timedOut:
            result = .failure(SignalError(.timeout, "no answer within \(milliseconds(timeout)) ms"))
            logger.debug(
                "adapter timed out", metadata: ["adapter": "\(name)", "timeout_ms": "\(milliseconds(timeout))"])
        }
        // A caller that went away (not the adapter's timeout) tells nothing about the adapter;
        // if it was the trial, the next request is.
        if !Task.isCancelled {
            recordForBreaker(result, trial: decision == .trial)
        } else if decision == .trial {
            breaker.abandonTrial()
        }
        return result
    }

    private func recordForBreaker(_ outcome: Outcome, trial: Bool) {
        let failed: Bool
        if case .failure(let error) = outcome { failed = error.isAdapterFault } else { failed = false }
        let wasOpen = breaker.isOpen
        if breaker.record(failed: failed, trial: trial, at: clock.now) {
            logger.warning(
                "circuit opened: adapter skipped while it cools down",
                metadata: [
                    "adapter": "\(name)", "failures": "\(breaker.consecutiveFailures)",
                    "cool_down_ms": "\(Int(milliseconds(configuration.circuitBreaker.coolDown)))",
                ])
            metrics.circuitOpened()
        } else if wasOpen && !breaker.isOpen {
            logger.notice("circuit closed: adapter answered its trial request", metadata: ["adapter": "\(name)"])
            metrics.circuitOpen(false)
        }
    }

    private func remember(_ signal: Signal, under key: CacheKey, generation: Int, fetchedAt: C.Instant) {
        // Only plaintexts are cached: they are sealed afresh for every request.
        guard configuration.cacheTTL > .zero, generation == self.generation, case .plaintext(let bytes) = signal else {
            return
        }
        if let existing = cache[key] {
            // A fetch that began before the cached one's does not replace it.
            guard existing.fetchedAt <= fetchedAt else { return }
        } else if cache.count >= Self.cacheCapacity {
            makeRoom()
        }
        uses += 1
        cache[key] = Cached(plaintext: bytes, fetchedAt: fetchedAt, lastUsed: uses)
    }

    /// Drops the expired entries, or, when none is, the least recently used one.
    private func makeRoom() {
        let now = clock.now
        let ttl = configuration.cacheTTL
        cache = cache.filter { $0.value.fetchedAt.duration(to: now) < ttl }
        guard cache.count >= Self.cacheCapacity,
            let oldest = cache.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
        else { return }
        cache[oldest] = nil
    }

    /// Fetches a new plaintext before the cached one expires; one refresh at a time per key.
    private func refreshInBackground(_ adapter: any SignalSource, _ request: SignalRequest, _ key: CacheKey) {
        guard refreshing.count < Self.cacheCapacity, refreshing.insert(key).inserted else { return }
        let timeout = configuration.timeout
        let generation = self.generation
        let clock = self.clock
        // Not the caller's child: a collection past its deadline goes on, so that a late value
        // still fills the cache; it ends with the adapter's answer, its own timeout or the stop.
        background.start {
            let start = clock.now
            let outcome = await withTimeout(timeout, clock: clock) { try await adapter.collectSignals(for: request) }
            await self.refreshFinished(outcome, under: key, generation: generation, fetchedAt: start)
        }
    }

    private func refreshFinished(
        _ outcome: TimedOutcome<Signal>, under key: CacheKey, generation: Int, fetchedAt: C.Instant
    ) {
        refreshing.remove(key)
        if case .value(let signal) = outcome {
            remember(signal, under: key, generation: generation, fetchedAt: fetchedAt)
        }
    }
}

/// Why an adapter was not reset.
public enum ResetFailure: Error, Sendable {
    case unknownAdapter(String)
    case notReady(String)
    case unsupported(String)
    /// The adapter tried and failed (it could not write its state, say).
    case failed(String)
}
