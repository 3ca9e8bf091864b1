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
    private let requests = Mutex<[String: Metrics.Counter]>([:])
    private let appRequests = Mutex<[String: Metrics.Counter]>([:])
    /// By route and method only: a histogram is a dozen series, and a status label would
    /// multiply them by every status a client can provoke.
    private let durations = Mutex<[String: Metrics.Timer]>([:])

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
    /// `duration` nil: counted, not timed (a request no route answered).
    func recordRequest(route: String, method: HTTPRequest.Method, status: Int, duration: Duration?) {
        let method = Self.methodLabel(method)
        let key = "\(route) \(method)"
        let counterKey = "\(key) \(status)"
        let counter = requests.withLock { counters in
            if let found = counters[counterKey] { return found }
            let made = Metrics.Counter(
                label: "secure_signals_http_requests_total",
                dimensions: [("route", route), ("method", method), ("status", "\(status)")], factory: factory)
            counters[counterKey] = made
            return made
        }
        counter.increment()
        guard let duration else { return }
        let timer = durations.withLock { timers in
            if let found = timers[key] { return found }
            let made = Metrics.Timer(
                label: "secure_signals_http_request_duration_seconds",
                dimensions: [("route", route), ("method", method)], preferredDisplayUnit: .seconds,
                factory: factory)
            timers[key] = made
            return made
        }
        timer.recordNanoseconds(duration.nanoseconds)
    }

    /// One request recognized as app `app`'s: counted by the app's id when it is registered,
    /// as `unknown` otherwise (anonymous and operator apps), so the series stay bounded by the
    /// registry.
    func recordApp(_ app: AppIdentity) {
        let label = app.isRegistered ? app.id : "unknown"
        let counter = appRequests.withLock { counters in
            if let found = counters[label] { return found }
            let made = Metrics.Counter(
                label: "secure_signals_app_requests_total", dimensions: [("app", label)], factory: factory)
            counters[label] = made
            return made
        }
        counter.increment()
    }

    /// The methods HTTP defines, as sent; any other a client makes up is `other`, so that no
    /// client can add series of its own at will.
    static func methodLabel(_ method: HTTPRequest.Method) -> String {
        let known: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .patch, .options, .trace, .connect]
        return known.contains(method) ? method.rawValue : "other"
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
