import API
import Hummingbird
import SharedTypes

/// Refuses a request whose app lacks the capability its endpoint requires (403
/// `not_permitted`), before the handler reads anything.
struct CapabilityMiddleware: RouterMiddleware {
    let capability: AppCapability

    func handle(
        _ request: Request, context: DaemonRequestContext,
        next: (Request, DaemonRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let app = context.app, app.may(capability) else {
            throw APIError(
                .forbidden, .notPermitted,
                "app '\(context.app?.id ?? "?")' is not granted \(capability.rawValue) (apps.registered.*.capabilities)"
            )
        }
        return try await next(request, context)
    }
}
