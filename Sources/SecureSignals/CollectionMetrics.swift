import Metrics
import Synchronization
import Timing

/// One adapter's collection latency, outcomes and circuit breaker, through the swift-metrics API (the daemon
/// chooses the backend). Handles are made once per adapter and outcome, not per request.
final class CollectionMetrics: Sendable {
    private let adapter: String
    private let factory: any MetricsFactory
    private let latency: Timer
    private let outcomes = Mutex<[String: Counter]>([:])
    private let circuitIsOpen: Gauge
    private let circuitOpenings: Counter

    init(adapter: String, factory: any MetricsFactory) {
        self.adapter = adapter
        self.factory = factory
        latency = Timer(
            label: "secure_signals_adapter_collection_seconds", dimensions: [("adapter", adapter)], factory: factory)
        circuitIsOpen = Gauge(
            label: "secure_signals_adapter_circuit_open", dimensions: [("adapter", adapter)], factory: factory)
        circuitOpenings = Counter(
            label: "secure_signals_adapter_circuit_opened_total", dimensions: [("adapter", adapter)], factory: factory)
        circuitIsOpen.record(0)
    }

    func circuitOpened() {
        circuitOpenings.increment()
        circuitIsOpen.record(1)
    }

    func circuitOpen(_ open: Bool) {
        circuitIsOpen.record(open ? 1 : 0)
    }

    func record(outcome: String, latency duration: Duration) {
        latency.recordNanoseconds(duration.nanoseconds)
        let counter = outcomes.withLock { counters in
            if let counter = counters[outcome] { return counter }
            let counter = Counter(
                label: "secure_signals_adapter_collections_total",
                dimensions: [("adapter", adapter), ("outcome", outcome)], factory: factory)
            counters[outcome] = counter
            return counter
        }
        counter.increment()
    }
}
