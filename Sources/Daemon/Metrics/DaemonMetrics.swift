import Hummingbird
import Mediation
import Metrics
import Prometheus
import SharedTypes
import Synchronization

/// One daemon's Prometheus registry (behind `/metrics`) and the factory every part of it counts
/// through. It is handed down rather than installed process-wide, so that daemons built side
/// by side in one process (the in-process tests) each count their own; the runner also makes it
/// the process's backend, for libraries that count through swift-metrics on their own.
final class DaemonMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    private let scraped: ScrapedMetrics
    private let requests = Mutex<[String: (count: Metrics.Counter, duration: Metrics.Timer)]>([:])

    init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Signal collection lives in milliseconds: 0.5 ms to the 500 ms deadline and past it.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(5),
        ]
        self.factory = factory
        scraped = ScrapedMetrics(registry: registry)
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "secure_signals", metricName: "build", unitName: "info",
                helpText: "The daemon's version, as a label; the value is always 1."),
            labels: [("version", DaemonVersion.current)]
        ).set(Int64(1))
    }

    /// Makes this daemon's factory the process's swift-metrics backend; a process may do that once.
    func bootstrapProcessBackend() {
        MetricsSystem.bootstrap(factory)
    }

    /// One request answered, once its answer is written (an event stream's when it ends): its
    /// count and how long it took, by route pattern, method and status.
    func recordRequest(route: String, method: HTTPRequest.Method, status: Int, duration: Duration) {
        let key = "\(route) \(method.rawValue) \(status)"
        let series = requests.withLock { series in
            if let found = series[key] { return found }
            let dimensions = [("route", route), ("method", method.rawValue), ("status", "\(status)")]
            let made = (
                count: Metrics.Counter(
                    label: "secure_signals_http_requests_total", dimensions: dimensions, factory: factory),
                duration: Metrics.Timer(
                    label: "secure_signals_http_request_duration_seconds", dimensions: dimensions,
                    preferredDisplayUnit: .seconds, factory: factory)
            )
            series[key] = made
            return made
        }
        series.count.increment()
        series.duration.recordNanoseconds(duration.nanoseconds)
    }

    /// The Prometheus text exposition, every family with its `# HELP`: the process, the
    /// adapters' states (`statuses`), the tracker outbox and the recipients' key ages read now.
    func exposition(
        statuses: [AdapterStatus], outbox: TrackerQueue.Backlog?, keySetAges: [String: Duration] = [:]
    ) -> String {
        scraped.update(statuses: statuses)
        if let outbox { scraped.update(outbox: outbox) }
        scraped.update(keySetAges: keySetAges)
        return MetricHelp.annotate(String(decoding: registry.emitToBuffer(), as: UTF8.self))
    }
}
