import SharedTypes

/// Server-side verification data, carried to the `reward_earned` event only when set.
@WireKeys
@MemberwiseInit
public struct ServerSideVerification: Sendable, Codable, Equatable {
    public var customData: String?
    public var userID: String?
}
