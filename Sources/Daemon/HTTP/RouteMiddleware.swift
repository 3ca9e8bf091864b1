import Hummingbird

/// Wraps the whole router: answers a request the router has no route for as 405 with `Allow`
/// when its path takes other methods and as 404 otherwise, and counts and times every request
/// by route pattern, method and status once its answer is made, or, for a stream, once its last
/// byte is written (an event stream counts when it ends). It needs the router's own route list,
/// so it sits outside it.
struct RouteMiddleware: RouterMiddleware {
    let routes: RouteIndex
    let metrics: DaemonMetrics

    /// The endpoint name the router gives a request it has no route for; it answers one with an
    /// empty 404 of its own, which this middleware replaces.
    static let unrouted = "NotFound"

    func handle(
        _ request: Request, context: DaemonRequestContext,
        next: (Request, DaemonRequestContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        if context.endpointPath == Self.unrouted, response.status == .notFound {
            response = try unrouted(request)
        }
        let (route, status, metrics) = (routeLabel(request, context), response.status.code, metrics)
        // Timed only when a route answered: a client's made-up paths and methods would
        // otherwise each add a histogram's dozen series.
        let routed = context.endpointPath.map { $0 != Self.unrouted } ?? false
        let method = request.method
        let record: @Sendable () -> Void = {
            metrics.recordRequest(
                route: route, method: method, status: status, duration: routed ? ContinuousClock.now - start : nil)
        }
        let body = response.body
        // An answer of known length is written at once: recorded now. A stream (the event
        // stream) is recorded once its last byte is written, so that it counts when it ends
        // and its duration is its life. (Wrapping every body for that costs a write a request.)
        guard body.contentLength == nil else {
            record()
            return response
        }
        // Hummingbird's own `withPostWriteClosure` is package-internal: the same, spelled here.
        response.body = ResponseBody { writer in
            defer { record() }
            try await body.write(writer)
        }
        return response
    }

    /// The matched route's pattern; for a path the router matched with no method, the pattern
    /// it matches; else "unknown".
    private func routeLabel(_ request: Request, _ context: DaemonRequestContext) -> String {
        if let matched = context.endpointPath, matched != Self.unrouted { return matched }
        return routes.route(matching: request.uri.path)?.pattern ?? "unknown"
    }

    /// 405 for a path that takes other methods, 404 for one the router does not have.
    private func unrouted(_ request: Request) throws -> Response {
        guard let route = routes.route(matching: request.uri.path) else {
            return try APIError(.notFound, .notFound, "no route \(request.method) \(request.uri.path)").response()
        }
        let allowed = route.allowedMethods.map(\.rawValue).joined(separator: ", ")
        var response = try APIError(
            .methodNotAllowed, .methodNotAllowed, "\(route.pattern) takes \(allowed), not \(request.method)"
        ).response()
        response.headers[.allow] = allowed
        return response
    }
}
