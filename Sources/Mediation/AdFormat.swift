/// What an ad unit serves.
public enum AdFormat: String, Sendable, Codable, CaseIterable {
    case native
    case rewarded
}
