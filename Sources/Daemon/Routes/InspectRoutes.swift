import API
import Hummingbird
import Inspector
import SharedTypes

/// The inspector's half of the socket API: the last loads and signals requests the daemon
/// answered, and a live stream of them. An app sees its own; an `inspect` app sees every app's.
struct InspectRoutes {
    let inspector: TraceRing
    let limits: ClientLimits

    @Sendable func loads(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        try TraceQuery.loads(request, in: inspector, asker: context.app)
    }

    @Sendable func load(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        try TraceQuery.load(try context.pathParameter("id"), in: inspector, asker: context.app)
    }

    @Sendable func signals(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        try TraceQuery.signals(request, in: inspector, asker: context.app)
    }

    /// Server-Sent Events of each new trace the caller may see. It holds one of the event-stream
    /// slots; a client that falls behind its buffer is let go.
    @Sendable func stream(_ request: Request, context: DaemonRequestContext) async throws -> Response {
        guard request.method != .head else { return Response(status: .ok, headers: TraceQuery.streamHeaders) }
        try limits.holdStream(context)
        return TraceQuery.stream(
            request, in: inspector, asker: context.app, buffer: limits.limits.eventStreamBuffer,
            channel: context.channel, fellBehind: limits.streamBehind(context))
    }

    /// The lists, one load, and the stream; none requires a capability (each app sees its own).
    func addRoutes(to router: EndpointRouter) {
        router.add(Endpoints.inspectLoads, use: loads)
        router.add(Endpoints.inspectLoad, use: load)
        router.add(Endpoints.inspectSignals, use: signals)
        router.add(Endpoints.inspectStream, use: stream)
    }
}
