import SharedTypes

/// What a rewarded ad grants, known once it is loaded.
@WireKeys
public struct Reward: Sendable, Codable, Equatable {
    public var type: String
    public var amount: Double

    public init(type: String, amount: Double) {
        self.type = type
        self.amount = amount
    }
}

/// Server-side verification data, carried to the `reward_earned` event only when set.
@WireKeys
public struct ServerSideVerification: Sendable, Codable, Equatable {
    public var customData: String?
    public var userID: String?

    public init(customData: String? = nil, userID: String? = nil) {
        self.customData = customData
        self.userID = userID
    }

}
