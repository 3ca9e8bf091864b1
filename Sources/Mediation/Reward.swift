import SharedTypes

/// What a rewarded ad grants, known once it is loaded.
@WireKeys
@MemberwiseInit
public struct Reward: Sendable, Codable, Equatable {
    public var type: String
    public var amount: Double
}

/// Server-side verification data, carried to the `reward_earned` event only when set.
@WireKeys
@MemberwiseInit
public struct ServerSideVerification: Sendable, Codable, Equatable {
    public var customData: String?
    public var userID: String?
}
