import FoundationEssentials
import SharedTypes

/// Turns the bytes of one VAST document into a `VASTDocument`, without fetching anything.
/// Lenient about what a player can do without (unknown elements, bad numbers); strict about the root and version.
public enum VASTReader {
    /// Elements nested deeper than this are refused unless a caller says otherwise: far above
    /// any real document (the deepest VAST 4.2 path is about a dozen levels).
    public static let defaultMaximumDepth = 256

    /// The document in `bytes`, or a `VASTError`: 100 when not well-formed XML or nested deeper
    /// than `maximumDepth` (or libxml2's own 256, whichever is less), 101 when the root `VAST` has no version, 102 when the root is not
    /// `VAST` (e.g. VAST 1.0) or the major version is not 2, 3 or 4.
    public static func read(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(VASTError)
        -> VASTDocument
    {
        let root: VASTXMLElement
        switch VASTXMLTreeBuilder.parse(bytes, maximumDepth: maximumDepth) {
        case .success(let element): root = element
        case .failure(.notWellFormed):
            throw VASTError(code: .xmlParse, message: "the document is not well-formed XML")
        case .failure(.tooDeep(let bound)):
            let why = bound < maximumDepth ? "libxml2's own limit" : "limits.max_document_depth"
            throw VASTError(
                code: .xmlParse, message: "the document nests elements deeper than \(bound) levels (\(why))")
        }
        guard root.name == "VAST" else {
            throw VASTError(
                code: .unsupportedVersion, message: "the root element is \(root.name), not VAST (VAST 1.0 or not VAST)")
        }
        guard let version = root.attribute("version")?.trimmingWhitespace, !version.isEmpty else {
            throw VASTError(code: .schema, message: "the VAST element has no version attribute")
        }
        let major = version.split(separator: ".", maxSplits: 1).first.flatMap { Int($0) }
        guard let major, (2...4).contains(major) else {
            throw VASTError(code: .unsupportedVersion, message: "VAST version \(version) is not supported (2, 3 or 4)")
        }
        return VASTDocument(
            version: version,
            errorURLs: urls(root.children("Error")),
            ads: root.children("Ad").map(ad)
        )
    }

    private static func ad(_ element: VASTXMLElement) -> VASTDocument.Ad {
        let content: VASTDocument.Content
        if let inLine = element.children.first(where: { $0.name == "InLine" || $0.name == "Wrapper" }) {
            content = inLine.name == "InLine" ? .inLine(self.inLine(inLine)) : .wrapper(wrapper(inLine))
        } else {
            content = .unrecognized(element.children.map(\.name))
        }
        return VASTDocument.Ad(
            id: element.attribute("id"),
            sequence: element.attribute("sequence").flatMap { Int($0.trimmingWhitespace) },
            adType: element.attribute("adType"),
            content: content
        )
    }

    private static func inLine(_ element: VASTXMLElement) -> VASTDocument.InLine {
        VASTDocument.InLine(
            adSystem: text(element.child("AdSystem")),
            adTitle: text(element.child("AdTitle")),
            advertiser: text(element.child("Advertiser")),
            pricing: pricing(element.child("Pricing")),
            errorURLs: urls(element.children("Error")),
            impressions: urls(element.children("Impression")),
            creatives: element.child("Creatives").map { $0.children("Creative").map(creative) }
        )
    }

    private static func wrapper(_ element: VASTXMLElement) -> VASTDocument.Wrapper {
        VASTDocument.Wrapper(
            adSystem: text(element.child("AdSystem")),
            pricing: pricing(element.child("Pricing")),
            errorURLs: urls(element.children("Error")),
            impressions: urls(element.children("Impression")),
            creatives: element.child("Creatives")?.children("Creative").map(creative) ?? [],
            adTagURI: text(element.child("VASTAdTagURI")),
            followAdditionalWrappers: flag(element.attribute("followAdditionalWrappers")) ?? true,
            allowMultipleAds: flag(element.attribute("allowMultipleAds")) ?? false
        )
    }

    private static func creative(_ element: VASTXMLElement) -> VASTDocument.Creative {
        VASTDocument.Creative(
            id: element.attribute("id"),
            adID: element.attribute("adId") ?? element.attribute("AdID") ?? element.attribute("adID"),
            sequence: element.attribute("sequence").flatMap { Int($0) },
            linear: element.child("Linear").map(linear),
            hasNonLinearAds: element.child("NonLinearAds") != nil,
            hasCompanionAds: element.child("CompanionAds") != nil
        )
    }

    private static func linear(_ element: VASTXMLElement) -> VASTDocument.Linear {
        let clicks = element.child("VideoClicks")
        return VASTDocument.Linear(
            durationMilliseconds: element.child("Duration").flatMap { VASTTime.milliseconds($0.text) },
            skipOffset: element.attribute("skipoffset").flatMap(VASTTime.offset),
            trackingEvents: element.child("TrackingEvents")?.children("Tracking").compactMap(trackingEvent) ?? [],
            clickThrough: clicks?.child("ClickThrough").flatMap { VASTURLList.clean($0.text) },
            clickTracking: urls(clicks?.children("ClickTracking") ?? []),
            mediaFiles: element.child("MediaFiles")?.children("MediaFile").map(mediaFile) ?? [],
            icons: element.child("Icons")?.children("Icon").map(icon) ?? []
        )
    }

    private static func trackingEvent(_ element: VASTXMLElement) -> VASTDocument.TrackingEvent? {
        guard let event = element.attribute("event")?.trimmingWhitespace, !event.isEmpty,
            let url = VASTURLList.clean(element.text)
        else { return nil }
        return VASTDocument.TrackingEvent(
            event: event, offset: element.attribute("offset").flatMap(VASTTime.offset), url: url)
    }

    /// A `MediaFile`; its URL may be empty here (the media selection skips it), its type defaults to "".
    private static func mediaFile(_ element: VASTXMLElement) -> VASTMediaFile {
        VASTMediaFile(
            url: VASTURLList.clean(element.text) ?? "",
            mimeType: element.attribute("type")?.trimmingWhitespace ?? "",
            width: integer(element.attribute("width")),
            height: integer(element.attribute("height")),
            bitrate: integer(element.attribute("bitrate")) ?? integer(element.attribute("maxBitrate")),
            delivery: element.attribute("delivery")?.trimmingWhitespace,
            codec: element.attribute("codec"),
            apiFramework: element.attribute("apiFramework")
        )
    }

    private static func icon(_ element: VASTXMLElement) -> VASTIcon {
        let clicks = element.child("IconClicks")
        return VASTIcon(
            program: element.attribute("program"),
            imageURL: element.child("StaticResource").flatMap { VASTURLList.clean($0.text) },
            width: integer(element.attribute("width")),
            height: integer(element.attribute("height")),
            xPosition: element.attribute("xPosition"),
            yPosition: element.attribute("yPosition"),
            clickThrough: clicks?.child("IconClickThrough").flatMap { VASTURLList.clean($0.text) },
            clickTracking: urls(clicks?.children("IconClickTracking") ?? []),
            viewTracking: urls(element.children("IconViewTracking"))
        )
    }

    private static func pricing(_ element: VASTXMLElement?) -> VASTPricing? {
        guard let element, let value = Double(element.trimmedText),
            let currency = element.attribute("currency")?.trimmingWhitespace, !currency.isEmpty
        else { return nil }
        return VASTPricing(value: value, currency: currency, model: element.attribute("model"))
    }

    /// The cleaned URLs of these elements, each once.
    private static func urls(_ elements: [VASTXMLElement]) -> [String] {
        VASTURLList.unique(elements.compactMap { VASTURLList.clean($0.text) })
    }

    /// Trimmed text; nil when missing or empty.
    private static func text(_ element: VASTXMLElement?) -> String? {
        guard let text = element?.trimmedText, !text.isEmpty else { return nil }
        return text
    }

    private static func integer(_ text: String?) -> Int? {
        text.flatMap { Int($0.trimmingWhitespace) }
    }

    /// "true"/"1" or "false"/"0"; nil otherwise.
    private static func flag(_ text: String?) -> Bool? {
        switch text?.trimmingWhitespace.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: return nil
        }
    }
}
