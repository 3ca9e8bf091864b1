import Mediation
import Prometheus
import SharedTypes
import Synchronization
import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// The metrics read when `/metrics` is scraped rather than counted as things happen: the
/// standard `process_*` metrics from `/proc` (as Prometheus's own client libraries name them)
/// and how many adapters and networks are in each state.
final class ScrapedMetrics: Sendable {
    /// The daemon's own families made here (besides the standard `process_*` ones), which carry
    /// their help text themselves.
    static let families = [
        "secure_signals_adapters", "secure_signals_tracker_outbox_pings",
        "secure_signals_tracker_outbox_oldest_age_seconds", "secure_signals_recipient_key_age_seconds",
    ]

    private let resident: Gauge
    private let virtual: Gauge
    private let openDescriptors: Gauge
    private let maxDescriptors: Gauge
    private let startTime: Gauge
    private let cpu: Counter
    private let outboxPings: Gauge
    private let outboxOldest: Gauge
    private let registry: PrometheusCollectorRegistry
    /// CPU seconds already counted, and the (kind, state) series set at the last scrape.
    private let last = Mutex<(cpu: Double, states: Set<[String]>)>((0, []))
    /// The recipients whose key age was set at the last scrape.
    private let keyAgeSeries = Mutex<Set<String>>([])

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        func process(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "process", metricName: name, unitName: unit, helpText: help)
        }
        resident = registry.makeGauge(descriptor: process("resident_memory", "bytes", "Resident memory size in bytes."))
        virtual = registry.makeGauge(descriptor: process("virtual_memory", "bytes", "Virtual memory size in bytes."))
        openDescriptors = registry.makeGauge(descriptor: process("open", "fds", "Number of open file descriptors."))
        maxDescriptors = registry.makeGauge(
            descriptor: process("max", "fds", "Maximum number of open file descriptors."))
        startTime = registry.makeGauge(
            descriptor: process("start_time", "seconds", "Start time of the process since unix epoch in seconds."))
        cpu = registry.makeCounter(
            descriptor: process("cpu_seconds", "total", "Total user and system CPU time spent in seconds."))
        outboxPings = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "secure_signals", metricName: "tracker_outbox", unitName: "pings",
                helpText: "Tracker pings owed: stored and not yet answered or given up."))
        outboxOldest = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "secure_signals", metricName: "tracker_outbox_oldest_age", unitName: "seconds",
                helpText: "How long the oldest owed tracker ping has been owed; 0 when none is."))
    }

    /// Sets the tracker outbox's gauges from `backlog`.
    func update(outbox backlog: TrackerQueue.Backlog) {
        outboxPings.set(Int64(backlog.count))
        outboxOldest.set(backlog.oldestAge.map { Double($0.nanoseconds) / 1e9 } ?? 0)
    }

    /// Sets each URL recipient's key age gauge; one with no set in force (or gone after a
    /// reload) has none.
    func update(keySetAges ages: [String: Duration]) {
        let descriptor = MetricNameDescriptor(
            namespace: "secure_signals", metricName: "recipient_key_age", unitName: "seconds",
            helpText: "How long ago a URL recipient's key set in force was fetched.")
        let gone = keyAgeSeries.withLock { series in
            defer { series = Set(ages.keys) }
            return series.subtracting(ages.keys)
        }
        for recipient in gone {
            registry.unregisterGauge(registry.makeGauge(descriptor: descriptor, labels: [("recipient", recipient)]))
        }
        for (recipient, age) in ages {
            registry.makeGauge(descriptor: descriptor, labels: [("recipient", recipient)])
                .set(Double(age.wholeMilliseconds) / 1000)
        }
    }

    /// Reads the process and sets the adapters-by-state gauge from `statuses`.
    func update(statuses: [AdapterStatus]) {
        if let footprint = ProcessFootprint.of(getpid()) {
            resident.set(Int64(footprint.residentBytes))
            virtual.set(Int64(footprint.virtualBytes))
            openDescriptors.set(Int64(footprint.openDescriptors))
            startTime.set(footprint.startTime)
            let counted = last.withLock { last in
                defer { last.cpu = max(last.cpu, footprint.cpuSeconds) }
                return last.cpu
            }
            if footprint.cpuSeconds > counted { cpu.increment(by: footprint.cpuSeconds - counted) }
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { maxDescriptors.set(Int64(clamping: limit.rlim_cur)) }

        var counts: [[String]: Int] = [:]
        for status in statuses { counts[[status.kind, status.state.rawValue], default: 0] += 1 }
        // A state no adapter is in any more reads 0, not its last count.
        let gone = last.withLock { last in
            defer { last.states.formUnion(counts.keys) }
            return last.states.subtracting(counts.keys)
        }
        for series in gone { counts[series] = 0 }
        for (series, count) in counts {
            registry.makeGauge(
                descriptor: MetricNameDescriptor(
                    namespace: "secure_signals", metricName: "adapters", unitName: "",
                    helpText: "Signal adapters and ad networks, by kind and state."),
                labels: [("kind", series[0]), ("state", series[1])]
            ).set(Int64(count))
        }
    }
}
