import Hummingbird
import Mediation
import StateStore

/// For the routes whose answer acknowledges something owed (a load's win notice, an
/// impression's and a click's trackers, a show, a dismiss, a reward): while the state database
/// takes no commits, refuses them up front (503 `state_unavailable`), so that nothing is applied
/// or sent for them; otherwise holds the answer until what the call owes is on disk: the
/// tracker pings it enqueued, with those of every call before it, share one commit. A call
/// whose commit fails under it was applied: it answers 503 all the same (it is not durably
/// acknowledged), and its pings go once the disk takes them. Signals and privacy never pass
/// through it.
struct OwedMiddleware: RouterMiddleware {
    let trackers: TrackerQueue
    let health: StateHealth
    /// False for a call that commits what it does itself (a reward claim): only the up-front
    /// refusal applies, so that a claim committed is never answered 503 for others' pings.
    var waitsForTrackers = true

    /// The same refusal, without waiting for the tracker outbox.
    var refusingOnly: OwedMiddleware {
        var middleware = self
        middleware.waitsForTrackers = false
        return middleware
    }

    func handle(
        _ request: Request, context: DaemonRequestContext,
        next: (Request, DaemonRequestContext) async throws -> Response
    ) async throws -> Response {
        guard request.method != .get, request.method != .head else { return try await next(request, context) }
        guard health.isAvailable else { throw Self.unavailable }
        guard waitsForTrackers else {
            do {
                return try await next(request, context)
            } catch  where !health.isAvailable {
                // Its own commit met the outage.
                throw Self.notRecorded
            }
        }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            try await commit()
            throw error
        }
        try await commit()
        return response
    }

    private func commit() async throws {
        do {
            try await trackers.committed()
        } catch {
            throw Self.notRecorded
        }
    }

    /// Refused up front: nothing was done.
    static let unavailable = APIError(
        .serviceUnavailable, .stateUnavailable,
        "the daemon's state database takes no commits now (see GET /v1/health); nothing was done: retry later")

    /// The call ran, and what it owes could not be committed: not acknowledged.
    static let notRecorded = APIError(
        .serviceUnavailable, .stateUnavailable,
        "the daemon could not commit what this call owes to its state database (see GET /v1/health); "
            + "it may have been applied, its pings going once the disk takes them: retry later")
}
