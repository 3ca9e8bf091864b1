import Hummingbird
import NIOCore

/// `GET /metrics`: the Prometheus text exposition of this daemon's registry.
struct MetricsRoutes {
    let metrics: DaemonMetrics
    let state: DaemonState

    func addRoutes(to router: Router<DaemonRequestContext>) {
        router.get("/metrics", use: exposition)
    }

    @Sendable func exposition(_ request: Request, context: DaemonRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition(statuses: await state.statuses()))))
    }
}
