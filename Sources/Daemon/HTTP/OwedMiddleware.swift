import Hummingbird
import Mediation

/// Holds the answer to a call that may have owed something (every method but GET and HEAD)
/// until what it owes is on disk: the tracker pings it enqueued, with those of every call
/// before it, share one commit. An answer is an acknowledgement, so it never leaves first.
struct OwedMiddleware: RouterMiddleware {
    let trackers: TrackerQueue

    func handle(
        _ request: Request, context: DaemonRequestContext,
        next: (Request, DaemonRequestContext) async throws -> Response
    ) async throws -> Response {
        guard request.method != .get, request.method != .head else { return try await next(request, context) }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            try await commit(context)
            throw error
        }
        try await commit(context)
        return response
    }

    private func commit(_ context: DaemonRequestContext) async throws {
        do {
            try await trackers.committed()
        } catch {
            throw APIError(
                .serviceUnavailable, "state_unavailable",
                "the daemon could not record what this call owes in its state database; see its log")
        }
    }
}
