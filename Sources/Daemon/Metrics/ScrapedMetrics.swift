import Prometheus
import SharedTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The metrics read when `/metrics` is scraped rather than counted as things happen: the
/// standard `process_*` metrics from `/proc` (as Prometheus's own client libraries name them)
/// and how many adapters and networks are in each state.
final class ScrapedMetrics: Sendable {
    private let resident: Gauge
    private let virtual: Gauge
    private let openDescriptors: Gauge
    private let maxDescriptors: Gauge
    private let startTime: Gauge
    private let cpu: Counter
    private let registry: PrometheusCollectorRegistry
    /// CPU seconds already counted, and the (kind, state) series set at the last scrape.
    private let last = Mutex<(cpu: Double, states: Set<[String]>)>((0, []))

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        resident = registry.makeGauge(name: "process_resident_memory_bytes", help: "Resident memory size in bytes.")
        virtual = registry.makeGauge(name: "process_virtual_memory_bytes", help: "Virtual memory size in bytes.")
        openDescriptors = registry.makeGauge(name: "process_open_fds", help: "Number of open file descriptors.")
        maxDescriptors = registry.makeGauge(name: "process_max_fds", help: "Maximum number of open file descriptors.")
        startTime = registry.makeGauge(
            name: "process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.")
        cpu = registry.makeCounter(
            name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.")
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
                name: "secure_signals_adapters", labels: [("kind", series[0]), ("state", series[1])],
                help: "Signal adapters and ad networks, by kind and state."
            ).set(Int64(count))
        }
    }
}
