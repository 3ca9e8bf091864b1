import Hummingbird

/// At most `max_requests_in_flight_per_peer` requests of one uid are answered at once; more
/// get 429 `too_many_requests` with `Retry-After`, so one app's flood cannot queue ahead of
/// another app's signals.
struct FairShareMiddleware: RouterMiddleware {
    let limits: ClientLimits

    func handle(
        _ request: Request, context: DaemonRequestContext,
        next: (Request, DaemonRequestContext) async throws -> Response
    ) async throws -> Response {
        let uid = context.peer?.uid
        if let refusal = limits.requests.acquire(peer: uid) {
            let (_, value) = ClientLimits.cap(
                of: refusal, total: .maxRequestsInFlightPerPeer, perPeer: .maxRequestsInFlightPerPeer)
            limits.refused(by: .maxRequestsInFlightPerPeer, value: value, peer: context.peer)
            throw APIError(
                .tooManyRequests, .tooManyRequests,
                "this uid has \(value) requests in flight (limits.max_requests_in_flight_per_peer); retry after 1 s",
                headers: [.retryAfter: "1"])
        }
        defer { limits.requests.release(peer: uid) }
        return try await next(request, context)
    }
}
