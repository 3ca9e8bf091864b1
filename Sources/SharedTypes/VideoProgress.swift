/// The events a client reports while a rewarded video plays.
public enum VideoProgress: String, Sendable, Codable, CaseIterable {
    case start
    case firstQuartile = "first_quartile"
    case midpoint
    case thirdQuartile = "third_quartile"
    case complete
    case skip

    public init(from decoder: any Decoder) throws {
        self = try StrictJSON.oneOf(decoder)
    }
}
