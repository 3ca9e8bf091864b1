import API
import Hummingbird

/// Registers the handlers of the API's endpoints (`Endpoints`) on the daemon's router: each at
/// its pattern and method, behind the capability it requires and what its answer acknowledges (`OwedMiddleware` for what the
/// daemon then owes, its refusal alone for a claim, nothing for the rest).
struct EndpointRouter {
    let router: Router<DaemonRequestContext>
    let owed: OwedMiddleware

    func add(
        _ endpoint: Endpoint,
        use handler: @escaping @Sendable (Request, DaemonRequestContext) async throws -> some ResponseGenerator
    ) {
        let path = RouterPath(endpoint.pattern)
        let method = HTTPRequest.Method(endpoint.method)
        let group = router.group()
        if let capability = endpoint.requires { group.add(middleware: CapabilityMiddleware(capability: capability)) }
        switch endpoint.acknowledges {
        case .nothingOwed: group.on(path, method: method, use: handler)
        case .owed: group.add(middleware: owed).on(path, method: method, use: handler)
        case .claim: group.add(middleware: owed.refusingOnly).on(path, method: method, use: handler)
        }
    }
}

extension HTTPRequest.Method {
    init(_ method: Endpoint.Method) {
        switch method {
        case .get: self = .get
        case .post: self = .post
        case .put: self = .put
        case .delete: self = .delete
        }
    }
}
