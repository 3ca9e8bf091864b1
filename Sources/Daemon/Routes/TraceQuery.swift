import API
import FoundationEssentials
import Hummingbird
import Inspector
import NIOCore
import SharedTypes

/// What an inspector request asks for and how it is answered, the same on the socket
/// (`InspectRoutes`) and on the loopback page (`InspectorPageRoutes`): the query's filters and
/// limit, the unknown trace's error, and the stream of traces as Server-Sent Events.
enum TraceQuery {
    /// How many traces a list answers with unless `limit` says.
    static let defaultLimit = 100

    /// `app`, and for loads `ad_unit` and `outcome`; `kind` nil (the stream) takes both kinds.
    static func filter(_ request: Request, asker: AppIdentity?, kind: TraceRing.Filter.Kind?) -> TraceRing.Filter {
        let query = request.uri.queryParameters
        var filter = TraceRing.Filter(asker: asker, kind: kind, app: query.get("app"))
        if kind != .signals { filter.adUnit = query.get("ad_unit") }
        if kind == .load { filter.outcome = query.get("outcome") }
        return filter
    }

    /// `limit`: 1-10000, `defaultLimit` when absent.
    static func limit(_ request: Request) throws -> Int {
        guard let raw = request.uri.queryParameters.get("limit") else { return defaultLimit }
        guard let limit = Int(raw), (1...10_000).contains(limit) else {
            throw APIError(
                .badRequest, .invalidRequest, "limit: must be a whole number from 1 to 10000, not \"\(raw)\"")
        }
        return limit
    }

    /// The load trace `raw` names, as `filter`'s asker may see it; 404 `unknown_trace` otherwise.
    static func load(_ raw: String, in inspector: TraceRing, _ filter: TraceRing.Filter) throws -> LoadTrace {
        guard let id = UInt64(raw) else {
            throw APIError(.badRequest, .invalidRequest, "id: must be a trace's number, not \"\(raw)\"")
        }
        guard let load = inspector.trace(id, filter)?.load else {
            throw APIError(
                .notFound, .unknownTrace,
                "no load trace \(raw) is kept for this app (the inspector keeps inspect.max_traces)")
        }
        return load
    }

    static let streamHeaders: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]

    /// Each new trace of `traces` as `event: load` or `event: signals`, its id as `id:`.
    static func stream(_ traces: AsyncStream<Trace>, connectionClosed: EventLoopFuture<Void>) -> Response {
        Response(
            status: .ok, headers: streamHeaders,
            body: EventStream.body(traces, connectionClosed: connectionClosed) { record($0) })
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
}
