import Logging
import SharedTypes
import Timing

/// One ad network for the daemon's life: set up exactly once (at start, or on first use when
/// lazy), its state and init latency kept for `/v1/adapters`.
actor NetworkHost {
    let name: String
    private let type: any AdNetworkAdapter.Type
    nonisolated let configuration: AdNetworkConfiguration
    private let logger: Logger
    private let services: AdNetworkServices
    private var state = AdapterState.initializing
    private var adapter: (any AdNetworkAdapter)?
    private var initError: String?
    private var initLatency: Duration?
    private var setup: Task<(any AdNetworkAdapter)?, Never>?

    init(
        configuration: AdNetworkConfiguration, type: any AdNetworkAdapter.Type, services: AdNetworkServices,
        logger: Logger
    ) {
        self.name = configuration.name
        self.type = type
        self.configuration = configuration
        self.services = services
        self.logger = logger
    }

    nonisolated var isLazy: Bool { configuration.lazy }

    /// The adapter, set up now if it is not yet (once: concurrent callers share the setup).
    /// Nil when its setup failed or timed out.
    func ready() async -> (any AdNetworkAdapter)? {
        if let adapter { return adapter }
        return await beginSetup().value
    }

    /// Starts the setup unless it has started; its task, which every caller shares. Not a
    /// child of any one caller: it ends within the network's init timeout, whoever waits.
    @discardableResult
    func beginSetup() -> Task<(any AdNetworkAdapter)?, Never> {
        if let setup { return setup }
        let task = Task { await self.runSetup() }
        setup = task
        return task
    }

    private func runSetup() async -> (any AdNetworkAdapter)? {
        let type = self.type
        let context = AdNetworkContext(logger: logger, services: services)
        let setup = configuration.setup
        let start = ContinuousClock.now
        let outcome = await withTimeout(configuration.initTimeout) {
            try await type.make(setup: setup, context: context)
        }
        initLatency = .now - start
        switch outcome {
        case .value(let adapter):
            self.adapter = adapter
            state = .ready
            logger.info("ad network ready", metadata: ["network": "\(name)", "sdk": "\(adapter.sdkVersion)"])
            return adapter
        case .failure(let error):
            initError = String(describing: error)
            state = .failed
        case .timedOut:
            initError = "no setup within its init timeout"
            state = .failed
        }
        logger.error("ad network failed to set up", metadata: ["network": "\(name)", "error": "\(initError ?? "")"])
        return nil
    }

    var status: AdapterStatus {
        let description: String
        switch state {
        case .initializing: description = configuration.lazy && setup == nil ? "set up on first use" : "initializing"
        case .ready: description = "ready"
        case .failed, .timedOut: description = initError ?? "failed"
        }
        return AdapterStatus(
            name: name, kind: "ad_network", state: state, description: description,
            initLatencyMilliseconds: initLatency.map(milliseconds),
            adapterVersion: type.adapterVersion, sdkVersion: adapter?.sdkVersion,
            circuit: CircuitStatus(state: .closed, consecutiveFailures: 0, retryInMilliseconds: nil, opened: 0),
            program: nil)
    }

    /// Returns once it is set up or failed (a lazy network not yet used is settled at once).
    func settled() async {
        guard !isSettled else { return }
        _ = await ready()
    }

    /// Whether it is set up or failed; a lazy network not yet used counts as settled.
    var isSettled: Bool { state != .initializing || (configuration.lazy && setup == nil) }

    var notReadyReason: String { initError.map { "\(name) is not ready: \($0)" } ?? "\(name) is not ready" }
}
