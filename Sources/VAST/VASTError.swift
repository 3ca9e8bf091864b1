/// The VAST error codes this module reports (VAST 4.2 §2.3.6.3), for the `[ERRORCODE]` of Error URLs.
public enum VASTErrorCode: Int, Sendable, Equatable, CaseIterable {
    /// The bytes are not XML, or not well-formed.
    case xmlParse = 100
    /// The document or an ad breaks the schema so that it cannot be used (e.g. an ad neither InLine nor Wrapper).
    case schema = 101
    /// The root is not `VAST` (e.g. VAST 1.0 `VideoAdServingTemplate`) or its major version is not 2, 3 or 4.
    case unsupportedVersion = 102
    /// The ad is not the type we play (an `adType="audio"` ad in a video slot).
    case unexpectedAdType = 200
    /// The ad has creatives but none Linear: a rewarded video needs a linear one.
    case unexpectedLinearity = 201
    /// A wrapper's VASTAdTagURI could not be fetched (transport error, timeout, non-2xx).
    case wrapperTimeout = 301
    /// Too many wrappers, a wrapper loop, or a wrapper where `followAdditionalWrappers` forbade one.
    case wrapperLimit = 302
    /// A wrapper's target held no ads.
    case noAdsAfterWrapper = 303
    /// The Linear creative has no media file our player can play.
    case noSupportedMediaFile = 403
}

/// Why an ad or a document could not be played, with every Error URL the caller should fire for it.
public struct VASTError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: VASTErrorCode
    /// Names what was wrong, e.g. "wrapper depth 6 exceeds the limit of 5 at http://…".
    public var message: String
    /// The Error URLs to fire with `code` as `[ERRORCODE]`, not yet expanded.
    public var errorURLs: [String] = []

    public var description: String {
        "VAST error \(code.rawValue): \(message)"
    }
}

/// The first tag URL could not be fetched: a network error for the caller, not a VAST error to report.
public struct VASTFetchFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The tag URL that was fetched.
    public var url: String
    /// What the fetch threw, as text.
    public var reason: String

    public var description: String {
        "fetching the VAST tag \(VASTURLList.shown(url)) failed: \(reason)"
    }
}
