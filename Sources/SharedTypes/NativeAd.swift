/// A native ad in the one schema every network's ad is mapped to: the client lays it out.
@WireKeys
@MemberwiseInit
public struct NativeAd: Sendable, Codable, Equatable {
    public var headline: String
    public var body: String?
    public var callToAction: String?
    public var advertiser: String?
    public var store: String?
    public var price: String?
    public var starRating: Double?
    public var icon: NativeImage?
    /// The main image first; only the first unless the load asked for `multiple_images`.
    public var images: [NativeImage] = []
    /// Width over height of the main media.
    public var mediaAspectRatio: Double?
    public var hasVideoContent: Bool = false
    public var adChoices: AdChoices?
    public var extraAssets: [String: String] = [:]

    /// Only the headline is required; a house ad's file leaves out what it does not have.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        headline = try container.decode(String.self, forKey: .headline)
        body = try container.decodeIfPresent(String.self, forKey: .body)
        callToAction = try container.decodeIfPresent(String.self, forKey: .callToAction)
        advertiser = try container.decodeIfPresent(String.self, forKey: .advertiser)
        store = try container.decodeIfPresent(String.self, forKey: .store)
        price = try container.decodeIfPresent(String.self, forKey: .price)
        starRating = try container.decodeIfPresent(Double.self, forKey: .starRating)
        icon = try container.decodeIfPresent(NativeImage.self, forKey: .icon)
        images = try container.decodeIfPresent([NativeImage].self, forKey: .images) ?? []
        mediaAspectRatio = try container.decodeIfPresent(Double.self, forKey: .mediaAspectRatio)
        hasVideoContent = try container.decodeIfPresent(Bool.self, forKey: .hasVideoContent) ?? false
        adChoices = try container.decodeIfPresent(AdChoices.self, forKey: .adChoices)
        extraAssets = try container.decodeIfPresent([String: String].self, forKey: .extraAssets) ?? [:]
    }
}

/// An image asset: its URL and scale, and its bytes (base64) when the daemon loaded them.
@WireKeys
@MemberwiseInit
public struct NativeImage: Sendable, Codable, Equatable {
    public var url: String
    public var scale: Double = 1
    public var width: Int?
    public var height: Int?
    /// Base64 of the image bytes; nil with `disable_image_loading`.
    public var data: String?

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        scale = try container.decodeIfPresent(Double.self, forKey: .scale) ?? 1
        width = try container.decodeIfPresent(Int.self, forKey: .width)
        height = try container.decodeIfPresent(Int.self, forKey: .height)
        data = try container.decodeIfPresent(String.self, forKey: .data)
    }
}

/// The AdChoices overlay: its icon and where it leads.
@WireKeys
@MemberwiseInit
public struct AdChoices: Sendable, Codable, Equatable {
    public var icon: NativeImage?
    public var url: String
    public var text: String?
}
