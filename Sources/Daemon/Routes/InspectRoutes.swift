import API
import FoundationEssentials
import Hummingbird
import Inspector
import NIOCore
import SharedTypes

/// The inspector's half of the socket API: the last loads and signals requests the daemon
/// answered, and a live stream of them. An app sees its own; an `inspect` app sees every app's.
struct InspectRoutes {
    let inspector: TraceRing
    let limits: ClientLimits

    /// How many traces a list answers with unless `limit` says.
    static let defaultLimit = 100

    func addRoutes(to router: EndpointRouter) {
        router.add(Endpoints.inspectLoads, use: loads)
        router.add(Endpoints.inspectLoad, use: load)
        router.add(Endpoints.inspectSignals, use: signals)
        router.add(Endpoints.inspectStream, use: stream)
    }

    /// Newest first; `ad_unit`, `app` and `outcome` filter, `limit` (1-10000) bounds.
    @Sendable func loads(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let filter = try Self.filter(request, context: context, loads: true)
        return LoadTraceList(loads: inspector.traces(filter, limit: try Self.limit(request)).compactMap(\.load))
    }

    @Sendable func load(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let raw = try context.pathParameter("id")
        guard let id = UInt64(raw), let load = inspector.trace(id, TraceRing.Filter(asker: context.app))?.load else {
            throw APIError(
                .notFound, .unknownTrace,
                "no load trace \(raw) is kept for this app (the inspector keeps inspect.max_traces)")
        }
        return load
    }

    /// Newest first; `app` filters, `limit` bounds.
    @Sendable func signals(_ request: Request, context: DaemonRequestContext) async throws -> some ResponseGenerator {
        let filter = try Self.filter(request, context: context, loads: false)
        return SignalsTraceList(
            signals: inspector.traces(filter, limit: try Self.limit(request)).compactMap(\.signals))
    }

    /// Server-Sent Events: each new trace the caller may see, as `event: load` or `event:
    /// signals` with the trace as `data:` and its id as `id:`. It holds one of the event-stream
    /// slots; a client that falls behind its buffer is let go.
    @Sendable func stream(_ request: Request, context: DaemonRequestContext) async throws -> Response {
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
        guard request.method != .head else { return Response(status: .ok, headers: headers) }
        var filter = TraceRing.Filter(asker: context.app)
        filter.app = request.uri.queryParameters.get("app")
        filter.adUnit = request.uri.queryParameters.get("ad_unit")
        try limits.holdStream(context)
        let traces = inspector.subscribe(
            filter, buffer: limits.limits.eventStreamBuffer, fellBehind: limits.streamBehind(context))
        return Response(
            status: .ok, headers: headers,
            body: EventStream.body(traces, connectionClosed: context.channel.closeFuture) { trace in
                Self.record(trace)
            })
    }

    /// A trace as one Server-Sent Event.
    static func record(_ trace: Trace) -> String {
        let encoder = WireFormat.encoder()
        let (event, data): (String, Data?) =
            switch trace {
            case .load(let load): ("load", try? encoder.encode(load))
            case .signals(let signals): ("signals", try? encoder.encode(signals))
            }
        return "id: \(trace.id)\nevent: \(event)\ndata: \(data.map { String(decoding: $0, as: UTF8.self) } ?? "{}")\n\n"
    }

    private static func filter(_ request: Request, context: DaemonRequestContext, loads: Bool) throws
        -> TraceRing.Filter
    {
        let query = request.uri.queryParameters
        var filter = TraceRing.Filter(asker: context.app, kind: loads ? .load : .signals, app: query.get("app"))
        if loads {
            filter.adUnit = query.get("ad_unit")
            filter.outcome = query.get("outcome")
        }
        return filter
    }

    private static func limit(_ request: Request) throws -> Int {
        guard let raw = request.uri.queryParameters.get("limit") else { return defaultLimit }
        guard let limit = Int(raw), (1...10_000).contains(limit) else {
            throw APIError(
                .badRequest, .invalidRequest, "limit: must be a whole number from 1 to 10000, not \"\(raw)\"")
        }
        return limit
    }
}
