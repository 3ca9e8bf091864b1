import Hummingbird

/// At most `max_requests_in_flight_per_peer` requests of one app are answered at once; more
/// get 429 `too_many_requests` with `Retry-After`, so one app's flood cannot queue ahead of
/// another app's signals (each app a broker hosts counts on its own).
struct FairShareMiddleware: RouterMiddleware {
    let limits: ClientLimits

    func handle(
        _ request: Request, context: DaemonRequestContext,
        next: (Request, DaemonRequestContext) async throws -> Response
    ) async throws -> Response {
        let holder = ClientLimits.holder(context)
        if let refusal = limits.requests.acquire(holder) {
            let (_, value) = ClientLimits.cap(
                of: refusal, total: .maxRequestsInFlightPerPeer, perPeer: .maxRequestsInFlightPerPeer)
            limits.refused(by: .maxRequestsInFlightPerPeer, value: value, peer: context.peer)
            throw APIError(
                .tooManyRequests, .tooManyRequests,
                "this app has \(value) requests in flight (limits.max_requests_in_flight_per_peer); retry after 1 s",
                headers: [.retryAfter: "1"])
        }
        defer { limits.requests.release(holder) }
        return try await next(request, context)
    }
}
