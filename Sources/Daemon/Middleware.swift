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
            throw APIError(.forbidden, "peer_not_allowed", "the peer's credentials cannot be read")
        }
        guard state.access.allows(peer) else {
            context.logger.warning(
                "refused a peer outside the access policy",
                metadata: ["peer_pid": "\(peer.pid)", "peer_uid": "\(peer.uid)", "peer_gid": "\(peer.gid)"])
            throw APIError(.forbidden, "peer_not_allowed", "uid \(peer.uid) may not use this socket")
        }
        return try await next(request, context)
    }
}

/// Turns every error into the API's JSON error, answers 405 for a known path with another
/// method, and counts requests by route and status.
struct ErrorAndMetricsMiddleware: RouterMiddleware {
    let metrics: DaemonMetrics

    func handle(
        _ request: Request, context: DaemonRequestContext,
        next: (Request, DaemonRequestContext) async throws -> Response
    ) async throws -> Response {
        let route = Routes.route(of: request.uri.path)
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = try answer(for: error, request: request, context: context, route: route)
        }
        metrics.countRequest(route: route?.name ?? "unknown", method: request.method, status: response.status.code)
        return response
    }

    private func answer(
        for error: any Error, request: Request, context: DaemonRequestContext,
        route: (name: String, methods: [HTTPRequest.Method])?
    ) throws -> Response {
        let apiError: APIError
        switch error {
        case let error as APIError:
            apiError = error
        case let error as HTTPError where error.status == .notFound:
            if let route, !route.methods.contains(request.method) {
                var response = try APIError(
                    .methodNotAllowed, "method_not_allowed",
                    "\(route.name) takes \(route.methods.map(\.rawValue).joined(separator: ", ")), not \(request.method)"
                ).response(from: request, context: context)
                response.headers[.allow] = route.methods.map(\.rawValue).joined(separator: ", ")
                return response
            }
            apiError = APIError(.notFound, "not_found", "no route \(request.method) \(request.uri.path)")
        case let error as HTTPError where error.status == .contentTooLarge:
            apiError = APIError(.contentTooLarge, "body_too_large", "the request body is too large")
        case let error as HTTPError:
            apiError = APIError(error.status, "http_error", error.body ?? error.status.reasonPhrase)
        default:
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            apiError = APIError(.internalServerError, "internal_error", "the daemon failed to answer; see its log")
        }
        return try apiError.response(from: request, context: context)
    }
}
