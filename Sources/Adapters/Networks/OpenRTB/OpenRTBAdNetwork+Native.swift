import Foundation
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
            guard JSONNesting.isWithin(limits.maximumDocumentDepth, body) else {
                throw AdLoadError(
                    .networkError,
                    JSONNesting.refusal("the native assetsurl's answer", maximumDepth: limits.maximumDocumentDepth))
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

    /// The native response in `markup`, refused when it nests deeper than the limits allow or
    /// holds a text or URL over them.
    static func nativeResponse(_ markup: JSONValue, macros: AuctionMacros, limits: AdContentLimits)
        throws(AdLoadError) -> NativeResponse
    {
        let data = try nativeMarkup(markup, macros: macros)
        if let problem = nestingProblem(data, limits) { throw AdLoadError(.networkError, problem) }
        let response: NativeResponse
        do {
            response = try JSONDecoder().decode(NativeResponse.Markup.self, from: data).response
        } catch {
            throw AdLoadError(.networkError, "the native adm is not a Native 1.2 response: \(DecodingFailure(error))")
        }
        if let problem = response.problem(limits) {
            throw AdLoadError(.networkError, "the native ad is refused: \(problem)")
        }
        return response
    }

    /// Why `markup` is over the limits (nested too deep, a text or URL too long); nil when it
    /// fits, and when it cannot be read at all (that fails the load as it always did).
    static func limitProblem(_ markup: JSONValue, macros: AuctionMacros, limits: AdContentLimits) -> String? {
        guard let data = try? nativeMarkup(markup, macros: macros) else { return nil }
        if let problem = nestingProblem(data, limits) { return problem }
        return (try? JSONDecoder().decode(NativeResponse.Markup.self, from: data))?.response.problem(limits)
    }

    private static func nestingProblem(_ data: Data, _ limits: AdContentLimits) -> String? {
        JSONNesting.isWithin(limits.maximumDocumentDepth, data)
            ? nil : JSONNesting.refusal("the native adm", maximumDepth: limits.maximumDocumentDepth)
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
