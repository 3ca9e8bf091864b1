import Hummingbird

/// The routes a router holds, by path pattern, read from the router itself once every route is
/// registered: which methods a path takes (for 405 answers), and the pattern a path matches
/// when the router matched no route (for the metrics' route label).
struct RouteIndex: Sendable {
    struct Route: Sendable {
        /// As the router and the documentation write it: `/v1/ads/{id}/impression`.
        var pattern: String
        var methods: [HTTPRequest.Method]
        fileprivate var path: RouterPath

        /// What a 405's `Allow` lists: the registered methods, and HEAD beside GET, which the
        /// router answers too (`autoGenerateHeadEndpoints`).
        var allowedMethods: [HTTPRequest.Method] {
            methods.contains(.get) && !methods.contains(.head) ? methods + [.head] : methods
        }
    }

    let routes: [Route]

    init<Context>(_ router: Router<Context>) {
        var byPattern: [String: Route] = [:]
        for route in router.routes {
            let pattern = route.path.description
            byPattern[pattern, default: Route(pattern: pattern, methods: [], path: route.path)].methods.append(
                route.method)
        }
        routes = byPattern.values.sorted { $0.pattern < $1.pattern }
    }

    /// The route whose pattern `path` matches, if any.
    func route(matching path: String) -> Route? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.first { route in
            route.path.count == segments.count && zip(route.path, segments).allSatisfy { $0 ~= $1 }
        }
    }
}
