import Hummingbird
import Logging
import ServiceLifecycle

/// `metrics.listen`: `/metrics` alone on a loopback TCP port, for a Prometheus that cannot reach
/// the Unix socket. It never serves the API: its router holds that one route.
enum MetricsServer {
    static func make(listener: MetricsListener, application: DaemonApplication, logger: Logger) -> some Service {
        let router = Router()
        MetricsRoutes(metrics: application.metrics, state: application.state, trackers: application.trackers).addRoutes(
            to: router)
        logger.notice("serving /metrics", metadata: ["listen": "\(listener.host):\(listener.port)"])
        return Application(
            router: router, configuration: .init(address: .hostname(listener.host, port: listener.port)), logger: logger
        )
    }
}
