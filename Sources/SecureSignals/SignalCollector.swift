import Consent
import FoundationEssentials
import Logging
import Metrics
import SharedTypes
import SignalCrypto
import Timing

/// Initializes every configured adapter exactly once, then answers each request by asking
/// the selected adapters concurrently, each under its own timeout and all under the
/// request's deadline, and sealing every plaintext signal for each of its recipients. Time
/// (timeouts, cache ages, circuit cool-downs) is `clock`'s.
public actor SignalCollector<C: Clock>: SignalProvider where C.Duration == Duration {
    /// One configured adapter: its host, and the configuration the host was last given.
    private struct Slot {
        var host: AdapterHost<C>
        var configuration: AdapterConfiguration
    }

    private let clock: C
    /// Wall time on `clock`: what a fetched recipient key set's expiry and a TC string's age
    /// are judged by.
    private let wall: WallClock<C>
    private let metrics: any MetricsFactory
    private var configuration: CollectorConfiguration
    private let registry: AdapterRegistry
    private let logger: Logger
    private var slots: [String: Slot] = [:]
    /// The privacy decisions in force for every app: an adapter one denies is not asked for it.
    private var policies = PrivacyPolicies.unset
    /// What a reload started: removed adapters stopping (their programs get a grace period)
    /// and new ones initializing. `shutdown` waits for them.
    private let lifecycle = OwnedTasks<Never>()
    /// The ephemeral keys of seals, made ahead of need.
    private var keys: EphemeralKeyPool
    /// Where each request's trace goes (the inspector); none is made without one.
    private let tracer: (any TraceRecorder)?

    /// Where the adapters keep their state: set at start, kept across reloads.
    public var stateDirectory: URL { configuration.stateDirectory }

    /// Fails with the first adapter whose type is not registered.
    /// `metrics`: where the adapters' metrics go (the process's backend unless a caller gives one).
    public init(
        configuration: CollectorConfiguration, registry: AdapterRegistry, clock: C, logger: Logger,
        metrics: any MetricsFactory = MetricsSystem.factory, tracer: (any TraceRecorder)? = nil
    ) throws {
        self.clock = clock
        self.tracer = tracer
        self.wall = WallClock(clock: clock)
        self.metrics = metrics
        self.configuration = configuration
        self.keys = EphemeralKeyPool(capacity: configuration.ephemeralKeyPool)
        self.registry = registry
        self.logger = logger
        for adapter in configuration.adapters {
            slots[adapter.name] = Slot(
                host: try Self.makeHost(adapter, registry: registry, clock: clock, logger: logger, metrics: metrics),
                configuration: adapter)
        }
    }

    private static func makeHost(
        _ adapter: AdapterConfiguration, registry: AdapterRegistry, clock: C, logger: Logger,
        metrics: any MetricsFactory
    ) throws -> AdapterHost<C> {
        AdapterHost(
            configuration: adapter, factory: try registry.factory(for: adapter), clock: clock, logger: logger,
            metrics: metrics)
    }

    /// The configured adapters' names, in configuration order.
    private var names: [String] { configuration.adapters.map(\.name) }

    /// Starts every adapter's initialization, all at once, and returns: `settle` waits for
    /// them, `shutdown` ends them.
    public func beginInitializing() {
        for slot in names.compactMap({ slots[$0] }) {
            let (host, context) = (slot.host, context(for: slot.configuration))
            lifecycle.start { await host.initialize(context: context) }
        }
    }

    /// Starts every adapter's initialization, all at once, and returns when each is ready,
    /// failed or past its init timeout.
    public func initializeAll() async {
        let pending = names.compactMap { slots[$0] }.map { ($0.host, context(for: $0.configuration)) }
        await withTaskGroup(of: Void.self) { group in
            for (host, context) in pending {
                group.addTask { await host.initialize(context: context) }
            }
        }
    }

    private func context(for adapter: AdapterConfiguration) -> AdapterContext {
        var adapterLogger = logger
        adapterLogger[metadataKey: "adapter"] = "\(adapter.name)"
        return AdapterContext(
            name: adapter.name, stateDirectory: configuration.stateDirectory,
            logger: adapterLogger, initTimeout: adapter.initTimeout, clock: clock, metrics: metrics)
    }

    /// Whether every adapter is ready or failed (none initializing).
    /// Returns once every adapter is ready or failed, however long past its init timeout.
    public func settle() async {
        for slot in slots.values { await slot.host.settled() }
    }

    public var isSettled: Bool {
        get async {
            for slot in slots.values where !(await slot.host.isSettled) { return false }
            return true
        }
    }

    public func statuses() async -> [AdapterStatus] {
        var statuses: [AdapterStatus] = []
        for name in names {
            if let slot = slots[name] { statuses.append(await slot.host.status) }
        }
        return statuses
    }

    /// The privacy decisions in force for every app (`PrivacyPolicies.unset`: no consent
    /// anywhere); from the next request on, an adapter an app's denies is not asked for it. A
    /// cached signal is only served to a request under the state it was fetched under.
    public func setPrivacy(_ policies: PrivacyPolicies) {
        self.policies = policies
    }

    /// Why app `id`'s privacy state denies adapter `name`; nil when it may be asked.
    public func consentDenial(of name: String, for id: String?) -> String? {
        slots[name].flatMap {
            policies.policy(for: id, at: wall.nowMilliseconds).decide($0.configuration.consent).reason
        }
    }

    /// Every adapter's decision for app `id`, in configuration order: what a request now meets.
    public func consentDecisions(for id: String?) -> [(adapter: String, decision: ConsentDecision)] {
        let policy = policies.policy(for: id, at: wall.nowMilliseconds)
        return names.compactMap { name in slots[name].map { (name, policy.decide($0.configuration.consent)) } }
    }

    /// The configured recipients; their keys are shared with whatever refreshes them.
    public var recipients: [String: Recipient] { configuration.recipients }

    /// Every recipient's keys as they stand now, by name.
    public func recipientStatuses() -> [RecipientStatus] {
        let now = wall.nowMilliseconds
        return configuration.recipients.sorted { $0.key < $1.key }.map { $0.value.keys.status(name: $0.key, at: now) }
    }

    /// How long ago each URL recipient's key set in force was fetched, by name.
    public func keySetAges() -> [String: Duration] {
        let now = wall.nowMilliseconds
        return configuration.recipients.compactMapValues { recipient in
            recipient.keys.keySet.map { .milliseconds(max(0, now - $0.fetchedAt)) }
        }
    }

    /// The configured deadline of a request; a request may ask for less, never more.
    public var requestTimeout: Duration { configuration.requestTimeout }

    /// Resets an adapter that supports it (a new first-party id, say).
    public func reset(adapter name: String) async throws(ResetFailure) {
        guard let slot = slots[name] else { throw .unknownAdapter("no adapter named '\(name)'") }
        try await slot.host.reset()
    }

    /// Takes a reloaded configuration: adapters whose type and options are unchanged keep
    /// running with the new limits and recipients; new or changed ones are created (exactly
    /// once each); removed ones are dropped.
    public func reload(_ newConfiguration: CollectorConfiguration) async throws {
        var newSlots: [String: Slot] = [:]
        var created: [Slot] = []
        for adapter in newConfiguration.adapters {
            if let slot = slots[adapter.name], slot.configuration.makesTheSameAdapter(as: adapter),
                !(await slot.host.hasFailed)
            {
                await slot.host.update(adapter)
                newSlots[adapter.name] = Slot(host: slot.host, configuration: adapter)
                continue
            }
            let slot = Slot(
                host: try Self.makeHost(adapter, registry: registry, clock: clock, logger: logger, metrics: metrics),
                configuration: adapter)
            newSlots[adapter.name] = slot
            created.append(slot)
        }
        if newConfiguration.ephemeralKeyPool != keys.capacity {
            keys.stop()
            keys = EphemeralKeyPool(capacity: newConfiguration.ephemeralKeyPool)
        }
        configuration = newConfiguration
        let removed = slots.filter { name, slot in newSlots[name].map { $0.host !== slot.host } ?? true }
        slots = newSlots
        for (_, slot) in removed {
            let host = slot.host
            lifecycle.start { await host.shutdown() }
        }
        for slot in created {
            let (host, context) = (slot.host, context(for: slot.configuration))
            // A reload does not wait for new adapters: each ends within its init timeout.
            lifecycle.start { await host.initialize(context: context) }
        }
    }

    /// Stops every adapter, and with them their programs; returns when all are gone. The
    /// ephemeral key pool stops, its keys dropped.
    public func shutdown() async {
        keys.stop()
        let hosts = slots.values.map(\.host)
        await withTaskGroup(of: Void.self) { group in
            for host in hosts { group.addTask { await host.shutdown() } }
            // Retiring adapters stop, and new ones end their initialization with the stop above.
            group.addTask { [lifecycle] in await lifecycle.waitForAll() }
        }
    }

    /// Collects signals for one request of `app` (nil: the core alone, under the standing
    /// state), under its privacy state. `adapters` selects some (all when nil; each once);
    /// `timeout` shortens the configured deadline. Never takes longer than the deadline, whatever the
    /// adapters do.
    public func collect(
        requestID: String, adapters selection: [String]? = nil, timeout: Duration? = nil, identifiers: Bool = true,
        app: AppIdentity? = nil
    ) async -> CollectionResult {
        let deadline = min(timeout ?? configuration.requestTimeout, configuration.requestTimeout)
        let started = clock.now
        let policy = policies.policy(for: app?.id, at: wall.nowMilliseconds)
        let request = SignalRequest(requestID: requestID, privacy: policy.state, app: app)
        var seen = Set<String>()
        let selected = (selection ?? names).filter { seen.insert($0).inserted }
        var errors: [AdapterFailure] = []
        var jobs: [(host: AdapterHost<C>, adapter: AdapterConfiguration, recipients: [Recipient])] = []
        for name in selected {
            guard let slot = slots[name] else {
                errors.append(
                    AdapterFailure(
                        adapter: name, code: .unknownAdapter, message: "no adapter named '\(name)' is configured"))
                continue
            }
            if let reason = policy.decide(slot.configuration.consent).reason {
                errors.append(AdapterFailure(adapter: name, code: .consentMissing, message: reason))
                continue
            }
            if !identifiers, slot.configuration.consent.identifier {
                errors.append(
                    AdapterFailure(
                        adapter: name, code: .consentMissing,
                        message: "an identifier, and this ad request is served in limited mode"))
                continue
            }
            jobs.append(
                (
                    slot.host, slot.configuration,
                    slot.configuration.recipients.compactMap { configuration.recipients[$0] }
                ))
        }
        let maxSignalBytes = configuration.maxSignalBytes
        let keys = self.keys
        // Adapters get the deadline less a margin for sealing what they return.
        let collectionBudget = max(deadline - .milliseconds(5), deadline * 0.8)
        let issuedAt = Int64(Date().timeIntervalSince1970 * 1000)
        let now = wall.nowMilliseconds

        var signals: [SealedSignal] = []
        var answered: [AdapterTrace] = []
        await withTaskGroup(of: Sealed.self) { group in
            for (index, job) in jobs.enumerated() {
                group.addTask {
                    let answer = await job.host.answer(request, timeout: min(job.adapter.timeout, collectionBudget))
                    let (sealed, failures) = Self.seal(
                        answer.outcome, adapter: job.adapter.name, recipients: job.recipients, request: request,
                        issuedAt: issuedAt, keysAt: now, maxSignalBytes: maxSignalBytes, ephemeralKeys: keys
                    )
                    return Sealed(
                        index: index, signals: sealed, failures: failures, latency: answer.latency,
                        circuit: answer.circuit)
                }
            }
            var results: [Sealed] = []
            for await result in group { results.append(result) }
            let tracing = tracer?.isRecording == true
            for result in results.sorted(by: { $0.index < $1.index }) {
                signals += result.signals
                errors += result.failures
                if tracing { answered.append(result.trace(adapter: jobs[result.index].adapter.name)) }
            }
        }
        // In the order asked, whether found before asking (unknown, denied) or after.
        let position = Dictionary(uniqueKeysWithValues: selected.enumerated().map { ($1, $0) })
        errors.sort { position[$0.adapter, default: 0] < position[$1.adapter, default: 0] }
        if let tracer, tracer.isRecording {
            tracer.record(
                SignalsTrace(
                    id: 0, requestID: requestID, app: app?.id, startedAtMilliseconds: now,
                    durationMilliseconds: milliseconds(started.duration(to: clock.now)),
                    deadlineMilliseconds: milliseconds(deadline), privacy: policy.summary,
                    adapters: Sealed.traces(answered: answered, errors: errors, order: position)))
        }
        return CollectionResult(requestID: requestID, signals: signals, errors: errors)
    }

    /// Seals one adapter's outcome for each of its recipients that has a key in force at
    /// `keysAt` (wall-clock milliseconds); a recipient without one costs a `no_recipient_key`
    /// naming it, and only its own envelope. Plaintext never leaves unsealed.
    private static func seal(
        _ outcome: AdapterHost<C>.Outcome, adapter: String, recipients: [Recipient],
        request: SignalRequest, issuedAt: Int64, keysAt now: Int64, maxSignalBytes: Int,
        ephemeralKeys: EphemeralKeyPool
    ) -> ([SealedSignal], [AdapterFailure]) {
        func failure(_ error: SignalError) -> ([SealedSignal], [AdapterFailure]) {
            ([], [AdapterFailure(adapter: adapter, code: error.code, message: error.message)])
        }
        switch outcome {
        case .failure(let error):
            return failure(error)
        case .signal(.sealed(let envelope), let cached, let versions):
            guard envelope.utf8.count <= maxSignalBytes else {
                return failure(tooLarge(envelope.utf8.count, maxSignalBytes))
            }
            return (
                [
                    SealedSignal(
                        adapter: adapter, adapterVersion: versions.adapter, sdkVersion: versions.sdk, recipient: nil,
                        keyID: nil, envelope: envelope, cached: cached)
                ], []
            )
        case .signal(.plaintext(let bytes), let cached, let versions):
            guard bytes.count <= maxSignalBytes else { return failure(tooLarge(bytes.count, maxSignalBytes)) }
            guard !recipients.isEmpty else {
                return failure(SignalError(.noRecipientKey, "adapter '\(adapter)' has no recipient with a key"))
            }
            let payload = SignalPayload(
                v: 1, adapter: adapter, adapterVersion: versions.adapter, sdkVersion: versions.sdk,
                requestID: request.requestID, issuedAtMilliseconds: issuedAt, signal: Data(bytes).base64EncodedString())
            do {
                let encoded = Array(try WireFormat.encoder().encode(payload))
                var sealed: [SealedSignal] = []
                var unsealed: [AdapterFailure] = []
                for recipient in recipients {
                    let sealer: EnvelopeSealer
                    do {
                        sealer = try recipient.keys.sealer(at: now)
                    } catch {
                        unsealed.append(
                            AdapterFailure(
                                adapter: adapter, recipient: recipient.name, code: error.code,
                                message: "recipient '\(recipient.name)' \(error.message)"))
                        continue
                    }
                    sealed.append(
                        SealedSignal(
                            adapter: adapter, adapterVersion: versions.adapter, sdkVersion: versions.sdk,
                            recipient: recipient.name, keyID: Int(sealer.header.keyID),
                            envelope: try sealer.seal(encoded, ephemeral: try ephemeralKeys.take()), cached: cached))
                }
                return (sealed, unsealed)
            } catch {
                return failure(SignalError(.collectionFailed, "sealing failed: \(error)"))
            }
        }
    }

    private static func tooLarge(_ count: Int, _ cap: Int) -> SignalError {
        SignalError(.signalTooLarge, "signal of \(count) bytes is over the \(cap)-byte cap")
    }
}

extension SignalCollector where C == ContinuousClock {
    /// A collector on the monotonic clock.
    public init(configuration: CollectorConfiguration, registry: AdapterRegistry, logger: Logger) throws {
        try self.init(configuration: configuration, registry: registry, clock: ContinuousClock(), logger: logger)
    }
}
