import Mediation
import SharedTypes

/// A Native 1.2 response (the native `adm`), bare or wrapped in a `"native"` key as Native
/// 1.0/1.1 bidders still send it.
struct NativeResponse: Decodable, Sendable {
    var assets: [Asset]?
    var assetsurl: String?
    var link: Link
    var imptrackers: [String]?
    var eventtrackers: [EventTracker]?
    var privacy: String?

    struct Asset: Decodable, Sendable {
        var id: Int?
        var title: Title?
        var img: Image?
        var data: DataAsset?
        var video: Video?
    }

    struct Title: Decodable, Sendable { var text: String }

    struct Image: Decodable, Sendable {
        var type: Int?
        var url: String
        var w: Int?
        var h: Int?
    }

    struct DataAsset: Decodable, Sendable {
        var type: Int?
        var value: String
    }

    struct Video: Decodable, Sendable { var vasttag: String }

    struct Link: Decodable, Sendable {
        var url: String
        var clicktrackers: [String]?
        var fallback: String?
    }

    struct EventTracker: Decodable, Sendable {
        var event: Int
        var method: Int
        var url: String?
    }

    /// The markup's response, unwrapped from `{"native": …}` when it is wrapped.
    struct Markup: Decodable, Sendable {
        var response: NativeResponse

        private enum Key: String, CodingKey { case native }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if container.contains(.native) {
                response = try container.decode(NativeResponse.self, forKey: .native)
            } else {
                response = try NativeResponse(from: decoder)
            }
        }
    }

    /// What an `assetsurl` answers: the assets, as a list, or as the `assets` of an object,
    /// bare or wrapped in `"native"`.
    struct AssetsDocument: Decodable, Sendable {
        var assets: [Asset]

        private enum Key: String, CodingKey { case assets, native }

        init(from decoder: any Decoder) throws {
            if let list = try? decoder.singleValueContainer().decode([Asset].self) {
                assets = list
                return
            }
            let container = try decoder.container(keyedBy: Key.self)
            if container.contains(.native) {
                assets = try container.nestedContainer(keyedBy: Key.self, forKey: .native).decode(
                    [Asset].self, forKey: .assets)
            } else {
                assets = try container.decode([Asset].self, forKey: .assets)
            }
        }
    }

    /// The asset's place in the daemon's schema: by the id the request gave it, when the
    /// asset is of the kind that id asked for; else by its own type; else none.
    static func role(of asset: Asset) -> NativeRequest.Asset? {
        if let id = asset.id, let role = NativeRequest.Asset(rawValue: id) {
            switch role {
            case .title where asset.title != nil: return role
            case .mainImage, .icon:
                if let image = asset.img, image.type.map({ NativeRequest.ImageType(rawValue: $0) == nil }) ?? true {
                    return role
                }
            case .body, .sponsoredBy, .callToAction, .rating, .price:
                if asset.data != nil && asset.data?.type == nil { return role }
            default: break
            }
        }
        if asset.title != nil { return .title }
        if let type = asset.img?.type.flatMap(NativeRequest.ImageType.init) {
            return type == .icon ? .icon : .mainImage
        }
        switch asset.data?.type.flatMap(NativeRequest.DataType.init) {
        case .desc?: return .body
        case .sponsored?: return .sponsoredBy
        case .callToAction?: return .callToAction
        case .rating?: return .rating
        case .price?, .salePrice?: return .price
        default: return nil
        }
    }

    /// Why the response is refused under `limits`: a text over its asset's `len` (or
    /// `max_text_bytes`), a URL over `max_url_bytes`; nil when everything fits.
    func problem(_ limits: AdContentLimits) -> String? {
        var texts: [(text: String, what: String, length: Int?)] = []
        var urls: [(url: String, what: String)] = []
        for (index, asset) in (assets ?? []).enumerated() {
            let name = "asset \(asset.id.map(String.init) ?? "#\(index)")"
            let length = Self.role(of: asset).flatMap(NativeRequest.length)
            if let title = asset.title?.text { texts.append((title, "\(name) title", length)) }
            if let value = asset.data?.value { texts.append((value, "\(name) data", length)) }
            if let image = asset.img?.url { urls.append((image, "\(name) image URL")) }
        }
        urls += [(link.url, "link URL")] + (link.fallback.map { [($0, "link fallback")] } ?? [])
        urls +=
            (link.clicktrackers ?? []).map { ($0, "click tracker") }
            + (imptrackers ?? []).map { ($0, "impression tracker") }
        urls += (eventtrackers ?? []).compactMap { tracker in tracker.url.map { ($0, "event tracker") } }
        urls += [assetsurl, privacy].compactMap { $0 }.map { ($0, "assetsurl or privacy URL") }
        for text in texts {
            if let problem = limits.problem(text: text.text, text.what, length: text.length) { return problem }
        }
        for url in urls {
            if let problem = limits.problem(url: url.url, url.what) { return problem }
        }
        return nil
    }

    /// The response in the daemon's native schema with its trackers; throws a message naming
    /// what is missing.
    func networkAd() throws(AdLoadError) -> NetworkAd {
        var headline: String?
        var ad = NativeAd(headline: "")
        var extra: [String: String] = [:]
        for (index, asset) in (assets ?? []).enumerated() {
            let key = "asset_\(asset.id.map(String.init) ?? "#\(index)")"
            switch Self.role(of: asset) {
            case .title?: headline = headline ?? asset.title?.text
            case .mainImage?: if let image = asset.img { ad.images.append(Self.image(image)) }
            case .icon?: if let image = asset.img { ad.icon = ad.icon ?? Self.image(image) }
            case .body?: ad.body = ad.body ?? asset.data?.value
            case .sponsoredBy?: ad.advertiser = ad.advertiser ?? asset.data?.value
            case .callToAction?: ad.callToAction = ad.callToAction ?? asset.data?.value
            case .price?: ad.price = ad.price ?? asset.data?.value
            case .rating?:
                if let value = asset.data?.value, let rating = Double(value.trimmed) {
                    ad.starRating = rating
                } else if let value = asset.data?.value {
                    extra[key] = value
                }
            case nil:
                if asset.video != nil {
                    ad.hasVideoContent = true
                } else if let value = asset.data?.value ?? asset.img?.url ?? asset.title?.text {
                    extra[key] = value
                }
            }
        }
        guard let title = headline?.trimmed, !title.isEmpty else {
            throw AdLoadError(.networkError, "the native response has no title asset")
        }
        ad.headline = title
        ad.extraAssets = extra
        ad.mediaAspectRatio = ad.images.first.flatMap { image in
            guard let width = image.width, let height = image.height, height > 0 else { return nil }
            return Double(width) / Double(height)
        }
        if let privacy = privacy?.trimmed, !privacy.isEmpty { ad.adChoices = AdChoices(url: privacy) }

        let destination = link.url.trimmed
        guard !destination.isEmpty else { throw AdLoadError(.networkError, "the native response's link has no url") }
        var deepLinks: [String] = []
        var clickDestination = destination
        if let scheme = Self.scheme(of: destination), !["http", "https"].contains(scheme) {
            deepLinks = [destination]
            if let fallback = link.fallback?.trimmed, !fallback.isEmpty { clickDestination = fallback }
        }
        // Impressions: the 1.1 trackers and the 1.2 image-pixel event trackers (event 1, method 1).
        // JavaScript trackers (method 2) need a web view the daemon does not have.
        var impressions = imptrackers ?? []
        for tracker in eventtrackers ?? [] where tracker.event == 1 && tracker.method == 1 {
            if let url = tracker.url { impressions.append(url) }
        }
        return NetworkAd(
            content: .native(ad), clickDestination: clickDestination, deepLinks: deepLinks,
            impressionTrackers: impressions.map(\.trimmed).uniqued(),
            clickTrackers: (link.clicktrackers ?? []).map(\.trimmed).uniqued())
    }

    /// The URL's scheme (RFC 3986 §3.1), lower-cased; nil when it has none.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), let first = url.first, first.isLetter else { return nil }
        let scheme = url[..<colon]
        guard scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return nil }
        return scheme.lowercased()
    }

    private static func image(_ image: Image) -> NativeImage {
        NativeImage(url: image.url.trimmed, width: image.w, height: image.h)
    }
}

extension String {
    var trimmed: String { trimmingWhitespace }
}

extension Array where Element == String {
    /// Non-empty strings, each once, in order.
    func uniqued() -> [String] {
        var seen = Set<String>()
        return filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
