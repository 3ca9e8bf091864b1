import Hummingbird
import Logging

/// Refuses connections from peers outside the access policy (403 `peer_not_allowed`),
/// naming their pid and uid in the log.
struct AccessMiddleware: RouterMiddleware {
    let state: DaemonState

    func handle(
        _ request: Request, context: DaemonRequestContext,
        next: (Request, DaemonRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let peer = context.peer else {
            throw APIError(.forbidden, .peerNotAllowed, "the peer's credentials cannot be read")
        }
        guard state.access.allows(peer) else {
            context.logger.warning(
                "refused a peer outside the access policy",
                metadata: ["peer_pid": "\(peer.pid)", "peer_uid": "\(peer.uid)", "peer_gid": "\(peer.gid)"])
            throw APIError(.forbidden, .peerNotAllowed, "uid \(peer.uid) may not use this socket")
        }
        return try await next(request, context)
    }
}
