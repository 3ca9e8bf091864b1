import API
import SharedTypes

extension DaemonClient {
    /// `GET /v1/inspect/loads`: the traces of the last loads this app may see, newest first.
    public func inspectLoads(adUnit: String? = nil, app: String? = nil, outcome: String? = nil, limit: Int? = nil)
        async throws -> [LoadTrace]
    {
        let query = [
            adUnit.map { ("ad_unit", $0) }, app.map { ("app", $0) }, outcome.map { ("outcome", $0) },
            limit.map { ("limit", String($0)) },
        ].compactMap { $0 }
        return try await call(Endpoints.inspectLoads, query: query, as: LoadTraceList.self).loads
    }

    /// `GET /v1/inspect/loads/{id}`.
    public func inspectLoad(_ id: String) async throws -> LoadTrace {
        try await call(Endpoints.inspectLoad, id, as: LoadTrace.self)
    }

    /// `GET /v1/inspect/signals`: the traces of the last signals requests, newest first.
    public func inspectSignals(app: String? = nil, limit: Int? = nil) async throws -> [SignalsTrace] {
        let query = [app.map { ("app", $0) }, limit.map { ("limit", String($0)) }].compactMap { $0 }
        return try await call(Endpoints.inspectSignals, query: query, as: SignalsTraceList.self).signals
    }

    /// `GET /v1/inspect/stream`: each new trace as it is made (`load` or `signals` events whose
    /// data is the trace), from the moment this returns.
    public func inspectStream(app: String? = nil, adUnit: String? = nil) async throws -> AdEventStream {
        let query = [app.map { ("app", $0) }, adUnit.map { ("ad_unit", $0) }].compactMap { $0 }
        return try await serverSentEvents(Endpoints.inspectStream, query: query)
    }
}
