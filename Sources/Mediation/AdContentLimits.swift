import SharedTypes

/// What the daemon takes from an ad server, at most (`limits.*`): how deep a document nests,
/// how long one text or URL of an ad is, and how many bytes one ad and all stored ads hold. Over
/// a bound a bid or an ad is refused with its reason, never truncated, so that no remote server
/// can make the daemon recurse without end or hold memory without bound.
public struct AdContentLimits: Sendable, Equatable {
    /// Nesting of XML elements (VAST) and of JSON arrays and objects (bid responses, native
    /// markup), each document (`max_document_depth`).
    public var maximumDocumentDepth: Int
    /// One text of an ad with no length of its own in the request (`max_text_bytes`).
    public var maximumTextBytes: Int
    /// One URL of an ad: an image, a click destination, a tracker (`max_url_bytes`).
    public var maximumURLBytes: Int
    /// One stored ad, its image bytes included (`max_ad_bytes`).
    public var maximumAdBytes: Int
    /// Every ad the store holds, added up (`max_stored_ad_bytes`).
    public var maximumStoredAdBytes: Int

    public init(
        maximumDocumentDepth: Int = JSONNesting.defaultMaximumDepth, maximumTextBytes: Int = 4096,
        maximumURLBytes: Int = 8192, maximumAdBytes: Int = 2 << 20, maximumStoredAdBytes: Int = 64 << 20
    ) {
        self.maximumDocumentDepth = maximumDocumentDepth
        self.maximumTextBytes = maximumTextBytes
        self.maximumURLBytes = maximumURLBytes
        self.maximumAdBytes = maximumAdBytes
        self.maximumStoredAdBytes = maximumStoredAdBytes
    }

    /// Why `text` (the ad's `what`) is refused: over `length` characters when the request gave
    /// one (a Native asset's `len`), else over `maximumTextBytes`; nil when it fits.
    public func problem(text: String, _ what: String, length: Int? = nil) -> String? {
        if let length, text.count > length {
            return "its \(what) is \(text.count) characters, over the \(length) the request asked (len)"
        }
        let bytes = text.utf8.count
        guard bytes > maximumTextBytes else { return nil }
        return "its \(what) is \(bytes) bytes, over limits.max_text_bytes (\(maximumTextBytes))"
    }

    /// Why the JSON text `bytes` (`what`: "the bid response") is refused: it nests arrays and
    /// objects deeper than `maximumDocumentDepth`; nil when it does not.
    public func problem(nesting bytes: some Sequence<UInt8>, _ what: String) -> String? {
        guard !JSONNesting.isWithin(maximumDocumentDepth, bytes) else { return nil }
        return "\(what) nests arrays and objects deeper than \(maximumDocumentDepth) levels (limits.max_document_depth)"
    }

    /// Why `url` (the ad's `what`) is refused: over `maximumURLBytes`; nil when it fits.
    public func problem(url: String, _ what: String) -> String? {
        let bytes = url.utf8.count
        guard bytes > maximumURLBytes else { return nil }
        return "its \(what) is \(bytes) bytes, over limits.max_url_bytes (\(maximumURLBytes))"
    }
}
