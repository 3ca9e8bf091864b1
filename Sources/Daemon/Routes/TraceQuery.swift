import API
import FoundationEssentials
import Hummingbird
import Inspector
import NIOCore
import SharedTypes

/// What an inspector request asks for and how it is answered, the same on the socket
/// (`InspectRoutes`, for the asking app) and on the loopback page (`InspectorPageRoutes`, for
/// every app: `asker` nil): the lists, one load, and the stream of traces as Server-Sent Events.
enum TraceQuery {
    /// Newest first; `ad_unit`, `app` and `outcome` filter, `limit` (1-10000) bounds.
    static func loads(_ request: Request, in inspector: TraceRing, asker: AppIdentity?) throws -> LoadTraceList {
        let traces = inspector.traces(filter(request, asker: asker, kind: .load), limit: try limit(request))
        return LoadTraceList(loads: traces.compactMap(\.load))
    }

    /// Newest first; `app` filters, `limit` bounds.
    static func signals(_ request: Request, in inspector: TraceRing, asker: AppIdentity?) throws -> SignalsTraceList {
        let traces = inspector.traces(filter(request, asker: asker, kind: .signals), limit: try limit(request))
        return SignalsTraceList(signals: traces.compactMap(\.signals))
    }

    /// Each new trace `asker` may see (`app`, `ad_unit` filter) on `channel`, whose stream slot
    /// the caller holds; one more than `buffer` behind is let go (`fellBehind`).
    static func stream(
        _ request: Request, in inspector: TraceRing, asker: AppIdentity?, buffer: Int, channel: any Channel,
        fellBehind: @escaping @Sendable () -> Void
    ) -> Response {
        let traces = inspector.subscribe(
            filter(request, asker: asker, kind: nil), buffer: buffer, fellBehind: fellBehind)
        return Response(
            status: .ok, headers: streamHeaders,
            body: EventStream.body(traces, connectionClosed: channel.closeFuture) { record($0) })
    }

    /// How many traces a list answers with unless `limit` says.
    static let defaultLimit = 100

    /// `app`, and for loads `ad_unit` and `outcome`; `kind` nil (the stream) takes both kinds.
    private static func filter(_ request: Request, asker: AppIdentity?, kind: TraceRing.Filter.Kind?)
        -> TraceRing.Filter
    {
        let query = request.uri.queryParameters
        var filter = TraceRing.Filter(asker: asker, kind: kind, app: query.get("app"))
        if kind != .signals { filter.adUnit = query.get("ad_unit") }
        if kind == .load { filter.outcome = query.get("outcome") }
        return filter
    }

    /// `limit`: 1-10000, `defaultLimit` when absent.
    private static func limit(_ request: Request) throws -> Int {
        guard let raw = request.uri.queryParameters.get("limit") else { return defaultLimit }
        guard let limit = Int(raw), (1...10_000).contains(limit) else {
            throw APIError(
                .badRequest, .invalidRequest, "limit: must be a whole number from 1 to 10000, not \"\(raw)\"")
        }
        return limit
    }

    /// The load trace `raw` names, as `asker` may see it; 404 `unknown_trace` otherwise.
    static func load(_ raw: String, in inspector: TraceRing, asker: AppIdentity?) throws -> LoadTrace {
        guard let id = UInt64(raw) else {
            throw APIError(.badRequest, .invalidRequest, "id: must be a trace's number, not \"\(raw)\"")
        }
        guard let load = inspector.trace(id, TraceRing.Filter(asker: asker))?.load else {
            throw APIError(
                .notFound, .unknownTrace,
                "no load trace \(raw) is kept for this app (the inspector keeps inspect.max_traces)")
        }
        return load
    }

    static let streamHeaders: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]

    /// A trace as one Server-Sent Event: `event: load` or `event: signals`, its id as `id:`.
    static func record(_ trace: Trace) -> String {
        let encoder = WireFormat.encoder()
        let (event, data): (String, Data?) =
            switch trace {
            case .load(let load): ("load", try? encoder.encode(load))
            case .signals(let signals): ("signals", try? encoder.encode(signals))
            }
        return "id: \(trace.id)\nevent: \(event)\ndata: \(data.map { String(decoding: $0, as: UTF8.self) } ?? "{}")\n\n"
    }
}
