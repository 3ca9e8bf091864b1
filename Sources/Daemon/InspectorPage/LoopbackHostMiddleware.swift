import Hummingbird

/// The inspector page answers only requests addressed to a loopback name (`Host: localhost:P`,
/// `127.0.0.1:P`, `[::1]:P`, any port: an SSH forward may change it), so that a web page a
/// browser on the device opened cannot read the traces by pointing a name of its own at
/// 127.0.0.1 (DNS rebinding). Anything else is 403 `host_not_loopback`.
struct LoopbackHostMiddleware<Context: RequestContext>: RouterMiddleware {
    static var names: Set<String> { ["localhost", "127.0.0.1", "[::1]"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let authority = request.head.authority ?? ""
        guard Self.names.contains(Self.host(of: authority).lowercased()) else {
            throw APIError(
                .forbidden, .hostNotLoopback,
                "the inspector answers requests to localhost, 127.0.0.1 or [::1] only, not \"\(authority)\"")
        }
        return try await next(request, context)
    }

    /// `authority` without its port: `[::1]:9464` is `[::1]`, `localhost:9464` is `localhost`.
    static func host(of authority: String) -> String {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return authority }
            return String(authority[...close])
        }
        return String(authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}
