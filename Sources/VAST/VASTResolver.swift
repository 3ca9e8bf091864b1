import FoundationEssentials

/// Follows a VAST tag through its wrappers to the first playable linear ad, merging every wrapper's trackers.
public struct VASTResolver: Sendable {
    public var preferences: VASTMediaPreferences
    /// The most wrappers on one chain; one more is error 302.
    public var maximumWrapperDepth: Int
    /// The deepest nesting of elements a document may have (`VASTReader.defaultMaximumDepth`).
    public var maximumDocumentDepth: Int
    private let fetch: @Sendable (String) async throws -> [UInt8]

    /// fetch: the body at a URL (the adapter passes its HTTP client; throws on transport error, timeout, non-2xx).
    public init(
        preferences: VASTMediaPreferences = .init(), maximumWrapperDepth: Int = 5,
        maximumDocumentDepth: Int = VASTReader.defaultMaximumDepth,
        fetch: @escaping @Sendable (String) async throws -> [UInt8]
    ) {
        self.preferences = preferences
        self.maximumWrapperDepth = maximumWrapperDepth
        self.maximumDocumentDepth = maximumDocumentDepth
        self.fetch = fetch
    }

    /// Fetches the ad tag and resolves it. A failure to fetch the tag itself is thrown (a network error for the
    /// caller); failures to fetch wrapper targets are VAST error 301 inside the resolution.
    public func resolve(tagURL: String) async throws(VASTFetchFailure) -> VASTResolution {
        let body: [UInt8]
        do {
            body = try await fetch(tagURL)
        } catch {
            throw VASTFetchFailure(url: tagURL, reason: String(describing: error))
        }
        return await resolve(document: body, url: tagURL)
    }

    /// Resolves a VAST document already in hand (an OpenRTB `adm`). `url` is where it came from, to resolve
    /// relative wrapper URIs against; nil when it has none.
    ///
    /// Ads are tried in play order (`playOrder`); the first that yields a playable creative wins.
    public func resolve(document: [UInt8], url: String?) async -> VASTResolution {
        let parsed: VASTDocument
        do {
            parsed = try VASTReader.read(document, maximumDepth: maximumDocumentDepth)
        } catch {
            return .failure(error)
        }
        guard !parsed.ads.isEmpty else {
            return .noAd(errorURLs: parsed.errorURLs)
        }
        var discarded: [VASTError] = []
        for ad in Self.playOrder(parsed.ads) {
            let chain = Chain(documentURLs: url.map { [$0] } ?? [], wrappers: [], errorURLs: [])
            switch await follow(ad, documentURL: url, chain: chain) {
            case .success(let creative):
                return .ad(creative, discarded: discarded)
            case .failure(let error):
                discarded.append(error)
            }
        }
        guard let first = discarded.first else {
            return .noAd(errorURLs: parsed.errorURLs)  // not reached: every ad either plays or is discarded
        }
        var errorURLs: [String] = []
        for error in discarded {
            errorURLs = VASTURLList.merged(errorURLs, error.errorURLs)
        }
        errorURLs = VASTURLList.merged(errorURLs, parsed.errorURLs)
        let others = discarded.count > 1 ? " (and \(discarded.count - 1) more ads failed)" : ""
        return .failure(VASTError(code: first.code, message: first.message + others, errorURLs: errorURLs))
    }

    /// Ads with a `sequence` (a pod) by sequence first, then the standalone ads, each group in document order.
    public static func playOrder(_ ads: [VASTDocument.Ad]) -> [VASTDocument.Ad] {
        let pod = ads.enumerated()
            .compactMap { index, ad in ad.sequence.map { (sequence: $0, index: index, ad: ad) } }
            .sorted { ($0.sequence, $0.index) < ($1.sequence, $1.index) }
            .map(\.ad)
        return pod + ads.filter { $0.sequence == nil }
    }

    /// The wrappers followed so far to reach a document, with the Error URLs they and their documents gave.
    private struct Chain {
        /// URLs of the documents on the chain, the tag's first: a URL met again is a loop.
        var documentURLs: [String]
        /// Outermost first.
        var wrappers: [VASTDocument.Wrapper]
        var errorURLs: [String]
    }

    /// One ad of a document at the end of `chain`, followed to a creative or to the error that stopped it.
    private func follow(
        _ ad: VASTDocument.Ad, documentURL: String?, chain: Chain
    ) async -> Result<VASTCreative, VASTError> {
        let place = documentURL.map { " at \($0)" } ?? ""
        let adName = "ad \(ad.id.map { "\"\($0)\"" } ?? "without id")\(place)"
        switch ad.content {
        case .unrecognized(let names):
            let found = names.isEmpty ? "nothing" : names.joined(separator: ", ")
            return .failure(
                VASTError(
                    code: .schema, message: "\(adName) holds \(found), neither InLine nor Wrapper",
                    errorURLs: chain.errorURLs))
        case .inLine(let inLine):
            let errorURLs = VASTURLList.merged(chain.errorURLs, inLine.errorURLs)
            if let adType = ad.adType, adType.lowercased() == "audio" {
                return .failure(
                    VASTError(
                        code: .unexpectedAdType, message: "\(adName) is an audio ad; we play video",
                        errorURLs: errorURLs))
            }
            return VASTCreativeAssembly.creative(
                ad: ad, inLine: inLine, wrappers: chain.wrappers, adName: adName, errorURLs: errorURLs,
                preferences: preferences)
        case .wrapper(let wrapper):
            return await follow(wrapper, of: ad, adName: adName, documentURL: documentURL, chain: chain)
        }
    }

    /// Fetches and reads a wrapper's target, then follows the target's first ad in play order.
    private func follow(
        _ wrapper: VASTDocument.Wrapper, of ad: VASTDocument.Ad, adName: String, documentURL: String?, chain: Chain
    ) async -> Result<VASTCreative, VASTError> {
        let errorURLs = VASTURLList.merged(chain.errorURLs, wrapper.errorURLs)
        func failure(_ code: VASTErrorCode, _ message: String, _ more: [String] = []) -> Result<VASTCreative, VASTError>
        {
            .failure(VASTError(code: code, message: message, errorURLs: VASTURLList.merged(errorURLs, more)))
        }
        if let adType = ad.adType, adType.lowercased() == "audio" {
            return failure(.unexpectedAdType, "\(adName) is an audio ad; we play video")
        }
        let depth = chain.wrappers.count + 1
        guard depth <= maximumWrapperDepth else {
            return failure(
                .wrapperLimit,
                "wrapper depth \(depth) exceeds the limit of \(maximumWrapperDepth) at \(documentURL ?? "the ad markup")"
            )
        }
        if let parent = chain.wrappers.last, !parent.followAdditionalWrappers {
            return failure(
                .wrapperLimit,
                "\(adName) is a wrapper, but the wrapper before it says followAdditionalWrappers=false")
        }
        guard let uri = wrapper.adTagURI else {
            return failure(.schema, "\(adName) is a wrapper without a VASTAdTagURI")
        }
        guard let target = Self.resolve(uri, against: documentURL) else {
            return failure(
                .wrapperTimeout,
                "\(adName): the relative VASTAdTagURI \(VASTURLList.shown(uri)) has no document URL to resolve it against"
            )
        }
        guard !chain.documentURLs.contains(target) else {
            return failure(
                .wrapperLimit, "\(adName): wrapper loop, \(VASTURLList.shown(target)) is already on the chain")
        }
        let body: [UInt8]
        do {
            body = try await fetch(target)
        } catch {
            return failure(.wrapperTimeout, "fetching the wrapper target \(VASTURLList.shown(target)) failed: \(error)")
        }
        let document: VASTDocument
        do {
            document = try VASTReader.read(body, maximumDepth: maximumDocumentDepth)
        } catch {
            return failure(error.code, "the wrapper target \(VASTURLList.shown(target)): \(error.message)")
        }
        guard let first = Self.playOrder(document.ads).first else {
            return failure(
                .noAdsAfterWrapper, "the wrapper target \(VASTURLList.shown(target)) holds no ads", document.errorURLs)
        }
        let next = Chain(
            documentURLs: chain.documentURLs + [target], wrappers: chain.wrappers + [wrapper],
            errorURLs: VASTURLList.merged(errorURLs, document.errorURLs))
        return await follow(first, documentURL: target, chain: next)
    }

    /// A VASTAdTagURI as a URL to fetch: trimmed, `//host/x` → `https://host/x`, a relative one resolved against
    /// the wrapper document's URL. Nil when relative with no document URL.
    static func resolve(_ uri: String, against base: String?) -> String? {
        guard let uri = VASTURLList.clean(uri) else { return nil }
        if hasScheme(uri) {
            return uri
        }
        guard let base, let baseURL = URL(string: base), let resolved = URL(string: uri, relativeTo: baseURL) else {
            return nil
        }
        return resolved.absoluteString
    }

    /// Whether `uri` starts with a scheme (`https:`, `test:`, …), per RFC 3986 §3.1.
    private static func hasScheme(_ uri: String) -> Bool {
        guard let colon = uri.firstIndex(of: ":") else { return false }
        let scheme = uri[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }
}
