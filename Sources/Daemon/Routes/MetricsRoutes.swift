import Hummingbird
import Mediation
import NIOCore

/// `GET /metrics`: the Prometheus text exposition of this daemon's registry, on the socket and
/// on the optional loopback listener (`LoopbackServer`). An outbox that cannot be read leaves
/// its gauges as they were last scraped.
struct MetricsRoutes {
    let metrics: DaemonMetrics
    let state: DaemonState
    let trackers: TrackerQueue

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/metrics") { _, _ in await exposition() }
    }

    func exposition() async -> Response {
        let outbox = try? await trackers.backlog()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(
                byteBuffer: ByteBuffer(
                    string: metrics.exposition(
                        statuses: await state.statuses(), outbox: outbox,
                        keySetAges: await state.collector.keySetAges()))))
    }
}
