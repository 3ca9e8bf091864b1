import Hummingbird
import Logging
import ServiceLifecycle

/// `metrics.listen`: a loopback TCP port for what cannot reach the Unix socket: `/metrics` for
/// a Prometheus, and with `inspect.page` the inspector's page (a developer mode, reached through
/// an SSH forward). It never serves the API: its router holds only those routes.
enum LoopbackServer {
    static func make(listener: MetricsListener, application: DaemonApplication, logger: Logger) -> some Service {
        let router = Router(context: LoopbackRequestContext.self)
        router.add(middleware: LoopbackHostMiddleware())
        MetricsRoutes(metrics: application.metrics, state: application.state, trackers: application.trackers).addRoutes(
            to: router)
        var metadata: Logger.Metadata = ["listen": "\(listener.host):\(listener.port)"]
        if listener.servesInspector {
            InspectorPageRoutes(state: application.state, limits: application.limits).addRoutes(to: router)
            metadata["inspector"] = "/inspect"
        }
        logger.notice("serving /metrics", metadata: metadata)
        return Application(
            router: router, configuration: .init(address: .hostname(listener.host, port: listener.port)), logger: logger
        )
    }
}
