/// The shape of a native ad's main image or video a client asks for.
public enum MediaAspectRatio: String, Sendable, Codable, CaseIterable {
    case any, landscape, portrait

    public init(from decoder: any Decoder) throws {
        self = try StrictJSON.oneOf(decoder)
    }
}
