import API
import Hummingbird
import Inspector
import SharedTypes

/// The inspector's half of the socket API: the last loads and signals requests the daemon
/// answered, and a live stream of them. An app sees its own; an `inspect` app sees every app's.
struct InspectRoutes {
    let inspector: TraceRing
    let limits: ClientLimits

    /// Newest first; `ad_unit`, `app` and `outcome` filter, `limit` (1-10000) bounds.
    @Sendable func loads(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let filter = TraceQuery.filter(request, asker: context.app, kind: .load)
        return LoadTraceList(loads: inspector.traces(filter, limit: try TraceQuery.limit(request)).compactMap(\.load))
    }

    @Sendable func load(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        try TraceQuery.load(try context.pathParameter("id"), in: inspector, TraceRing.Filter(asker: context.app))
    }

    /// Newest first; `app` filters, `limit` bounds.
    @Sendable func signals(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let filter = TraceQuery.filter(request, asker: context.app, kind: .signals)
        return SignalsTraceList(
            signals: inspector.traces(filter, limit: try TraceQuery.limit(request)).compactMap(\.signals))
    }

    /// Server-Sent Events: each new trace the caller may see, as `event: load` or `event:
    /// signals` with the trace as `data:` and its id as `id:`. It holds one of the event-stream
    /// slots; a client that falls behind its buffer is let go.
    @Sendable func stream(_ request: Request, context: DaemonRequestContext) async throws -> Response {
        guard request.method != .head else { return Response(status: .ok, headers: TraceQuery.streamHeaders) }
        try limits.holdStream(context)
        let traces = inspector.subscribe(
            TraceQuery.filter(request, asker: context.app, kind: nil), buffer: limits.limits.eventStreamBuffer,
            fellBehind: limits.streamBehind(context))
        return TraceQuery.stream(traces, connectionClosed: context.channel.closeFuture)
    }

    /// The lists, one load, and the stream; none requires a capability (each app sees its own).
    func addRoutes(to router: EndpointRouter) {
        router.add(Endpoints.inspectLoads, use: loads)
        router.add(Endpoints.inspectLoad, use: load)
        router.add(Endpoints.inspectSignals, use: signals)
        router.add(Endpoints.inspectStream, use: stream)
    }
}
