import Hummingbird

/// The loopback listener answers only requests addressed to a loopback name (`Host:
/// localhost:P`, `127.0.0.1:P`, `[::1]:P`, any port: an SSH forward may change it), so that a
/// web page a browser on the device opened cannot read the traces or the metrics by pointing a
/// name of its own at 127.0.0.1 (DNS rebinding): anything else is 403 `host_not_loopback`. Nor
/// does it answer what another site's page sent (`Sec-Fetch-Site: cross-site` or `same-site`,
/// which browsers set), which could hold the page's stream slots: 403 `not_permitted`.
struct LoopbackHostMiddleware<Context: RequestContext>: RouterMiddleware {
    static var names: Set<String> { ["localhost", "127.0.0.1", "[::1]"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let authority = request.head.authority ?? ""
        guard Self.names.contains(Self.host(of: authority).lowercased()) else {
            throw APIError(
                .forbidden, .hostNotLoopback,
                "the loopback listener answers requests to localhost, 127.0.0.1 or [::1] only, not \"\(authority)\"")
        }
        if let site = request.headers.first(where: { $0.name.canonicalName == "sec-fetch-site" })?.value,
            !["same-origin", "none"].contains(site)
        {
            throw APIError(
                .forbidden, .notPermitted,
                "the loopback listener answers its own page and direct requests, not another site's (Sec-Fetch-Site: \(site))"
            )
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
