/// A custom native format's ad: named assets the client reads by key and renders itself.
@WireKeys
@MemberwiseInit
public struct CustomNativeAd: Sendable, Codable, Equatable {
    public var formatID: String
    /// By key; the AdChoices overlay, when the ad has one, is the asset `AdChoices`.
    public var assets: [String: CustomNativeAsset]
    /// The ad's main media: its video content when it has some, else its main image.
    public var media: CustomNativeMedia?
}

/// A custom native ad's main media.
@WireKeys
@MemberwiseInit
public struct CustomNativeMedia: Sendable, Codable, Equatable {
    public var hasVideoContent: Bool
    /// The video's URL, when it has video content.
    public var videoURL: String?
    /// The main image, when it has no video content.
    public var image: NativeImage?
}

/// One asset of a custom native ad.
public enum CustomNativeAsset: Sendable, Equatable, Codable {
    case text(String)
    case image(NativeImage)

    enum CodingKeys: String, CodingKey { case type, value, url, scale, width, height, data }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .text(let value):
            try container.encode("text", forKey: .type)
            try container.encode(value, forKey: .value)
        case .image(let image):
            try container.encode("image", forKey: .type)
            try container.encode(image.url, forKey: .url)
            try container.encode(image.scale, forKey: .scale)
            try container.encodeIfPresent(image.width, forKey: .width)
            try container.encodeIfPresent(image.height, forKey: .height)
            try container.encodeIfPresent(image.data, forKey: .data)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "text":
            self = .text(try container.decode(String.self, forKey: .value))
        case "image":
            self = .image(
                NativeImage(
                    url: try container.decode(String.self, forKey: .url),
                    scale: try container.decodeIfPresent(Double.self, forKey: .scale) ?? 1,
                    width: try container.decodeIfPresent(Int.self, forKey: .width),
                    height: try container.decodeIfPresent(Int.self, forKey: .height),
                    data: try container.decodeIfPresent(String.self, forKey: .data)))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown asset type '\(other)'")
        }
    }
}
