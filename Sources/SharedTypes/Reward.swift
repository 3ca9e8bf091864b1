/// What a rewarded ad grants, known once it is loaded.
@WireKeys
@MemberwiseInit
public struct Reward: Sendable, Codable, Equatable {
    public var type: String
    public var amount: Double
}
