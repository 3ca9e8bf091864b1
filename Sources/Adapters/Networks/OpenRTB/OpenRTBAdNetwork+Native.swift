import FoundationEssentials
import Mediation
import SharedTypes

/// Reading a winning bid's native markup, within the limits on what a bidder may send.
extension OpenRTBAdNetwork {
    /// A native `adm`: a JSON string or object, bare or wrapped in `"native"`. A response that
    /// has its assets only at `assetsurl` (Native 1.2 §5.1) has them fetched from there.
    func nativeAd(_ markup: JSONValue, macros: AuctionMacros, request: NetworkAdRequest)
        async
        throws(AdLoadError) -> NetworkAd
    {
        let limits = services.limits
        var response = try Self.nativeResponse(markup, macros: macros, limits: limits)
        if response.assets?.isEmpty ?? true, let url = response.assetsurl?.trimmed, !url.isEmpty {
            let body: [UInt8]
            do {
                body = try await services.fetcher.fetch(url, timeout: request.budget(.seconds(5)))
            } catch {
                throw AdLoadError(.networkError, "the native response's assetsurl failed: \(error.message)")
            }
            if let problem = limits.problem(nesting: body, "the native assetsurl's answer") {
                throw AdLoadError(.networkError, problem)
            }
            do {
                response.assets = try JSONDecoder().decode(NativeResponse.AssetsDocument.self, from: Data(body)).assets
            } catch {
                throw AdLoadError(.networkError, "the native assetsurl answered no assets: \(DecodingFailure(error))")
            }
            if let problem = response.problem(limits) {
                throw AdLoadError(.networkError, "the native ad is refused: \(problem)")
            }
        }
        return try response.networkAd()
    }

    /// A native markup as the limits judge it: its response, or why not.
    enum NativeReading {
        case response(NativeResponse)
        /// Nested too deep, or holding a text or URL over the limits: the bid is refused for it.
        case overLimit(AdLoadError, problem: String)
        /// Not a native response at all: the load fails, as it always did.
        case unreadable(AdLoadError)
    }

    static func read(_ markup: JSONValue, macros: AuctionMacros, limits: AdContentLimits) -> NativeReading {
        let data: Data
        do {
            data = try nativeMarkup(markup, macros: macros)
        } catch {
            return .unreadable(error)
        }
        if let problem = limits.problem(nesting: data, "the native adm") {
            return .overLimit(AdLoadError(.networkError, problem), problem: problem)
        }
        let response: NativeResponse
        do {
            response = try JSONDecoder().decode(NativeResponse.Markup.self, from: data).response
        } catch {
            return .unreadable(
                AdLoadError(.networkError, "the native adm is not a Native 1.2 response: \(DecodingFailure(error))"))
        }
        if let problem = response.problem(limits) {
            return .overLimit(AdLoadError(.networkError, "the native ad is refused: \(problem)"), problem: problem)
        }
        return .response(response)
    }

    /// The native response in `markup`, refused when it nests deeper than the limits allow or
    /// holds a text or URL over them.
    static func nativeResponse(_ markup: JSONValue, macros: AuctionMacros, limits: AdContentLimits)
        throws(AdLoadError) -> NativeResponse
    {
        switch read(markup, macros: macros, limits: limits) {
        case .response(let response): return response
        case .overLimit(let error, _), .unreadable(let error): throw error
        }
    }

    /// Why `markup` is over the limits (nested too deep, a text or URL too long); nil when it
    /// fits, and when it cannot be read at all (that fails the load as it always did).
    static func limitProblem(_ markup: JSONValue, macros: AuctionMacros, limits: AdContentLimits) -> String? {
        guard case .overLimit(_, let problem) = read(markup, macros: macros, limits: limits) else { return nil }
        return problem
    }

    /// The markup's JSON text with the auction's macros filled.
    private static func nativeMarkup(_ markup: JSONValue, macros: AuctionMacros) throws(AdLoadError) -> Data {
        switch markup {
        case .string(let text): return Data(macros.expand(text).utf8)
        case .object:
            guard let encoded = try? JSONEncoder().encode(markup) else {
                throw AdLoadError(.networkError, "the native adm cannot be read")
            }
            return Data(macros.expand(String(decoding: encoded, as: UTF8.self)).utf8)
        default:
            throw AdLoadError(.networkError, "the native adm is neither a JSON string nor an object")
        }
    }
}
