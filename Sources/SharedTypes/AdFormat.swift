/// What an ad unit serves.
public enum AdFormat: String, Sendable, Codable, CaseIterable {
    case native
    case rewarded

    public init(from decoder: any Decoder) throws {
        self = try StrictJSON.oneOf(decoder)
    }
}
