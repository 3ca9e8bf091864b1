import Hummingbird
import Logging
import NIOHTTP1

/// The router's first middleware: whatever a route or a middleware after it throws becomes the
/// API's JSON error here (`APIFailure`; a bug is 500 `internal_error`), before the router could
/// answer it in a shape of its own. Only the router's "no route" passes through, for
/// `RouteMiddleware` to answer.
struct ErrorMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: DaemonRequestContext,
        next: (Request, DaemonRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where context.endpointPath == RouteMiddleware.unrouted {
            throw error
        } catch {
            return try Self.answer(for: error, context: context)
        }
    }

    static func answer(for error: any Error, context: DaemonRequestContext) throws -> Response {
        switch error {
        case let failure as any APIFailure:
            return try failure.response()
        case let error as HTTPParserError:
            return try MalformedRequest(error: error).response()
        case let error as HTTPError where error.status == .contentTooLarge:
            return try APIError.bodyTooLarge.response()
        case let error as HTTPError:
            return try APIError(error.status, .httpError, error.body ?? error.status.reasonPhrase).response()
        default:
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            return try APIError(.internalServerError, .internalError, "the daemon failed to answer; see its log")
                .response()
        }
    }
}
