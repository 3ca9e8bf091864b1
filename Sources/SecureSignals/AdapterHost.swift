import Foundation
import Logging

/// One configured adapter for its whole life: creates it exactly once, keeps its state, init
/// latency and cache, and asks it for signals under a timeout.
actor AdapterHost {
    /// The answer of one adapter to one request.
    enum Outcome: Sendable {
        case signal(Signal, cached: Bool, sdkVersion: SemanticVersion)
        case failure(SignalError)
    }

    private struct Cached {
        var plaintext: [UInt8]
        var fetchedAt: ContinuousClock.Instant
        /// The privacy state it was collected under: only a request with the same state may use it.
        var privacy: PrivacyState?
        var generation: Int
    }

    let name: String
    let type: any SignalAdapter.Type
    private var configuration: AdapterConfiguration
    private let logger: Logger
    private let metrics: CollectionMetrics

    private var state = AdapterState.initializing
    private var adapter: (any SignalAdapter)?
    private var initError: SignalError?
    private var initLatency: Duration?
    private var cache: Cached?
    private var refreshing = false
    /// Bumped whenever cached signals become invalid (privacy change, reset), so that a
    /// collection that started before cannot cache its now stale answer.
    private var generation = 0

    init(configuration: AdapterConfiguration, type: any SignalAdapter.Type, logger: Logger) {
        self.name = configuration.name
        self.type = type
        self.configuration = configuration
        self.logger = logger
        self.metrics = CollectionMetrics(adapter: configuration.name)
    }

    /// Creates the adapter. Returns when it is ready or failed, or at its init timeout; in
    /// the last case it goes on initializing and serves once ready.
    func initialize(context: AdapterContext) async {
        let clock = ContinuousClock()
        let start = clock.now
        let type = self.type
        let creation = Task { try await type.init(context: context) }
        let outcome = await withTimeout(configuration.initTimeout) { try await creation.value }
        switch outcome {
        case .value(let adapter):
            finishInitialization(.success(adapter), latency: clock.now - start)
        case .failure(let error):
            finishInitialization(.failure(error), latency: clock.now - start)
        case .timedOut:
            state = .timedOut
            logger.warning("adapter still initializing after its init timeout", metadata: ["adapter": "\(name)"])
            Task {
                let result = await creation.result
                self.finishInitialization(result, latency: clock.now - start)
            }
        }
    }

    private func finishInitialization(_ result: Result<any SignalAdapter, any Error>, latency: Duration) {
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
        let description: String
        switch state {
        case .initializing: description = "initializing"
        case .ready: description = "ready"
        case .failed: description = initError?.description ?? "failed"
        case .timedOut:
            description = "still initializing after its \(milliseconds(configuration.initTimeout)) ms init timeout"
        }
        return AdapterStatus(
            name: name, kind: "builtin", state: state, description: description,
            initLatencyMilliseconds: initLatency.map(milliseconds), adapterVersion: type.adapterVersion,
            sdkVersion: adapter?.sdkVersion)
    }

    var isSettled: Bool { state == .ready || state == .failed }

    /// Takes the new limits and recipients of a reloaded configuration (same type and options).
    func update(_ configuration: AdapterConfiguration) {
        if configuration.cacheTTL != self.configuration.cacheTTL { cache = nil }
        self.configuration = configuration
    }

    /// Forgets cached signals: the privacy state changed.
    func privacyChanged() {
        invalidateCache()
    }

    private func invalidateCache() {
        generation += 1
        cache = nil
    }

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
    }

    /// The adapter's signal for `request`, from the cache while it is fresh.
    func collect(_ request: SignalRequest, timeout: Duration) async -> Outcome {
        let start = ContinuousClock.now
        let outcome = await collectUnmeasured(request, timeout: timeout)
        let label: String
        switch outcome {
        case .signal(_, let cached, _): label = cached ? "cached" : "ok"
        case .failure(let error): label = error.code.rawValue
        }
        metrics.record(outcome: label, latency: ContinuousClock.now - start)
        return outcome
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
        let now = ContinuousClock.now
        if let cache, cache.generation == generation, cache.privacy == request.privacy,
            now - cache.fetchedAt < configuration.cacheTTL
        {
            if now - cache.fetchedAt >= configuration.cacheTTL / 2 { refreshInBackground(adapter, request) }
            return .signal(.plaintext(cache.plaintext), cached: true, sdkVersion: adapter.sdkVersion)
        }
        let generation = self.generation
        let outcome = await withTimeout(timeout) { try await adapter.collectSignals(for: request) }
        switch outcome {
        case .value(let signal):
            remember(signal, for: request, generation: generation, fetchedAt: now)
            return .signal(signal, cached: false, sdkVersion: adapter.sdkVersion)
        case .failure(let error):
            return .failure(SignalError.from(error, fallback: .collectionFailed))
        case .timedOut:
            return .failure(SignalError(.timeout, "no answer within \(milliseconds(timeout)) ms"))
        }
    }

    private func remember(
        _ signal: Signal, for request: SignalRequest, generation: Int, fetchedAt: ContinuousClock.Instant
    ) {
        // Only plaintexts are cached: they are sealed afresh for every request.
        guard configuration.cacheTTL > .zero, generation == self.generation, case .plaintext(let bytes) = signal else {
            return
        }
        cache = Cached(plaintext: bytes, fetchedAt: fetchedAt, privacy: request.privacy, generation: generation)
    }

    /// Fetches a new plaintext before the cached one expires; one refresh at a time.
    private func refreshInBackground(_ adapter: any SignalAdapter, _ request: SignalRequest) {
        guard !refreshing else { return }
        refreshing = true
        let timeout = configuration.timeout
        let generation = self.generation
        Task {
            let start = ContinuousClock.now
            let outcome = await withTimeout(timeout) { try await adapter.collectSignals(for: request) }
            self.refreshFinished(outcome, for: request, generation: generation, fetchedAt: start)
        }
    }

    private func refreshFinished(
        _ outcome: TimedOutcome<Signal>, for request: SignalRequest, generation: Int, fetchedAt: ContinuousClock.Instant
    ) {
        refreshing = false
        if case .value(let signal) = outcome {
            remember(signal, for: request, generation: generation, fetchedAt: fetchedAt)
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

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded(toPlaces: 3)
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
