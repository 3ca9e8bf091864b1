import Hummingbird
import Metrics
import Prometheus

/// The Prometheus registry behind `/metrics`, bootstrapped as the process's swift-metrics
/// backend so that the collector's per-adapter metrics land in it too.
final class DaemonMetrics: Sendable {
    let registry: PrometheusCollectorRegistry

    /// Bootstraps swift-metrics; a process may do that once, so the daemon makes one of these.
    init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Signal collection lives in milliseconds: 0.5 ms to the 500 ms deadline and past it.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(5),
        ]
        MetricsSystem.bootstrap(factory)
    }

    func countRequest(route: String, method: HTTPRequest.Method, status: Int) {
        Counter(
            label: "secure_signals_http_requests_total",
            dimensions: [("route", route), ("method", method.rawValue), ("status", "\(status)")]
        ).increment()
    }

    /// The Prometheus text exposition format.
    func exposition() -> [UInt8] { registry.emitToBuffer() }
}
