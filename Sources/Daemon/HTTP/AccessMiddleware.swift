import API
import Hummingbird
import Logging
import SharedTypes

/// Refuses connections from peers outside the access policy (403 `peer_not_allowed`),
/// naming their pid and uid in the log; then recognizes the app the request speaks for
/// (`AppRegistry`), refusing one it cannot be (403 `unknown_app`, `app_not_hosted`); the
/// request's log lines name it, and it is counted by app.
struct AccessMiddleware: RouterMiddleware {
    let state: DaemonState
    let metrics: DaemonMetrics

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
        var context = context
        let named = request.headers.first { $0.name.canonicalName == APIHeaders.app.lowercased() }?.value
        do {
            context.app = try state.access.apps.app(for: peer, peer.process, naming: named)
        } catch AppRegistry.Refusal.unknownApp {
            context.logger.warning(
                "refused a peer that is no registered app",
                metadata: ["peer_pid": "\(peer.pid)", "peer_uid": "\(peer.uid)"])
            throw APIError(
                .forbidden, .unknownApp, "uid \(peer.uid) is no registered app, and apps.unknown refuses others")
        } catch AppRegistry.Refusal.notHosted(let app) {
            throw APIError(.forbidden, .appNotHosted, "this peer may not speak for app '\(app)'")
        }
        if let app = context.app {
            context.logger[metadataKey: "app"] = "\(app.id)"
            metrics.recordApp(app)
            state.appActivity.saw(app)
        }
        return try await next(request, context)
    }
}
