import API
import Hummingbird
import Inspector
import NIOCore
import SharedTypes

/// The inspector's page on the loopback listener (`inspect.page`, on `metrics.listen`): the
/// page and its script and style (no external asset), what the daemon runs, and every app's
/// traces with their live stream, under `/inspect`. TCP names no app, so this is a developer
/// mode: whoever reaches the port sees all; only loopback names are answered.
struct InspectorPageRoutes {
    let state: DaemonState
    let limits: ClientLimits

    /// The quota holder of the page's streams, which share the event-stream slots.
    static let streamHolder = "loopback"

    func addRoutes(to router: Router<LoopbackRequestContext>) {
        router.get("/") { _, _ in Response(status: .seeOther, headers: [.location: "/inspect"]) }
        let page = router.group("/inspect")
        page.get { _, _ in InspectorPage.response(InspectorPage.html, type: "text/html") }
        page.get("inspector.js") { _, _ in InspectorPage.response(InspectorPage.script, type: "text/javascript") }
        page.get("icon.svg") { _, _ in InspectorPage.response(InspectorPage.icon, type: "image/svg+xml") }
        page.get("inspector.css") { _, _ in InspectorPage.response(InspectorPage.style, type: "text/css") }
        page.get("overview", use: overview)
        page.get("loads", use: loads)
        page.get("loads/{id}", use: load)
        page.get("signals", use: signals)
        page.get("stream", use: stream)
    }

    @Sendable func overview(_ request: Request, context: LoopbackRequestContext) async throws -> InspectorOverview {
        InspectorOverview(
            version: DaemonVersion.current, adUnits: await state.ads.unitStatuses(app: nil),
            adapters: await state.collector.statuses(), networks: await state.ads.networkStatuses(),
            maxTraces: state.inspector.limits.maxTraces)
    }

    @Sendable func loads(_ request: Request, context: LoopbackRequestContext) async throws -> LoadTraceList {
        try TraceQuery.loads(request, in: state.inspector, asker: nil)
    }

    @Sendable func load(_ request: Request, context: LoopbackRequestContext) async throws -> LoadTrace {
        try TraceQuery.load(try context.parameters.require("id"), in: state.inspector, asker: nil)
    }

    @Sendable func signals(_ request: Request, context: LoopbackRequestContext) async throws -> SignalsTraceList {
        try TraceQuery.signals(request, in: state.inspector, asker: nil)
    }

    /// Every app's new traces, holding one of the event-stream slots; let go when it falls behind.
    @Sendable func stream(_ request: Request, context: LoopbackRequestContext) async throws -> Response {
        try limits.holdStream(holder: Self.streamHolder, peer: nil, channel: context.channel)
        return TraceQuery.stream(
            request, in: state.inspector, asker: nil, buffer: limits.limits.eventStreamBuffer,
            channel: context.channel, fellBehind: limits.streamBehind(peer: nil, channel: context.channel))
    }
}
