import SharedTypes

// The small answers of the socket API, defined here for the daemon to give and clients to
// read. (Ads, signals, health and recipients answer with their cores' own types.)

/// `GET /v1/adapters`: every signal adapter's status, in configuration order.
@WireKeys
@MemberwiseInit
public struct AdapterList: Codable, Sendable, Equatable {
    public var adapters: [AdapterStatus]
}

/// `POST /v1/adapters/{name}/reset`: which adapter was reset.
@WireKeys
@MemberwiseInit
public struct AdapterReset: Codable, Sendable, Equatable {
    public var adapter: String
    /// Always `done`: a reset that failed is an error answer.
    public var reset: String = "done"
}

/// `GET`, `PUT` and `DELETE /v1/privacy` (the calling app's own state) and `/v1/device/privacy`
/// (the device's): what `PUT` takes back.
@WireKeys
@MemberwiseInit
public struct PrivacyAnswer: Codable, Sendable, Equatable {
    /// Null while none is set: an app without one stands under the device's; without the
    /// device's, there is no consent.
    @Nullable public var privacy: PrivacyState?
}

/// `GET /v1/rewards`: the calling app's rewards in the state asked for.
@WireKeys
@MemberwiseInit
public struct RewardList: Codable, Sendable, Equatable {
    public var rewards: [EarnedReward]
}

/// `POST /v1/rewards/{transaction_id}/claim`: the reward, now claimed.
@WireKeys
@MemberwiseInit
public struct ClaimedReward: Codable, Sendable, Equatable {
    public var reward: EarnedReward
}
