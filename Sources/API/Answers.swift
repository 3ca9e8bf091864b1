import SharedTypes

// The small answers of the socket API, defined here for the daemon to give and clients to
// read. (Ads, signals, health and recipients answer with their cores' own types.)

/// `GET /v1/adapters`: every signal adapter's status, in configuration order.
@WireKeys
public struct AdapterList: Codable, Sendable, Equatable {
    public var adapters: [AdapterStatus]

    public init(adapters: [AdapterStatus]) { self.adapters = adapters }
}

/// `POST /v1/adapters/{name}/reset`: which adapter was reset.
@WireKeys
public struct AdapterReset: Codable, Sendable, Equatable {
    public var adapter: String
    /// Always `done`: a reset that failed is an error answer.
    public var reset = "done"

    public init(adapter: String) { self.adapter = adapter }
}

/// `GET`, `PUT` and `DELETE /v1/privacy`: the privacy state in force.
@WireKeys
public struct PrivacyAnswer: Codable, Sendable, Equatable {
    /// Null until the platform sets one: no consent.
    @Nullable public var privacy: PrivacyState?

    public init(privacy: PrivacyState?) { self.privacy = privacy }
}

/// `GET /v1/rewards`: the calling app's rewards in the state asked for.
@WireKeys
public struct RewardList: Codable, Sendable, Equatable {
    public var rewards: [EarnedReward]

    public init(rewards: [EarnedReward]) { self.rewards = rewards }
}

/// `POST /v1/rewards/{transaction_id}/claim`: the reward, now claimed.
@WireKeys
public struct ClaimedReward: Codable, Sendable, Equatable {
    public var reward: EarnedReward

    public init(reward: EarnedReward) { self.reward = reward }
}
