/// A reward a user earned, as the ledger keeps it until it is claimed (and for a while after).
@WireKeys
@MemberwiseInit
public struct EarnedReward: Sendable, Codable, Equatable {
    /// A UUID, the same in the `reward_earned` event, the SSV callback and the claim.
    public var transactionID: String
    public var adID: String
    public var adUnit: String
    public var rewardType: String
    public var rewardAmount: Double
    @Nullable public var customData: String?
    @Nullable public var userID: String?
    /// The app that showed the ad (which may list and claim it); nil when unknown.
    @Nullable public var app: String?
    /// Wall-clock milliseconds.
    @WireName("earned_at_ms") public var earnedAt: Int64
    @Nullable @WireName("claimed_at_ms") public var claimedAt: Int64?

    /// The amount as a person (and Google's SSV) writes it: `10`, not `10.0`.
    public var amountText: String {
        rewardAmount == rewardAmount.rounded() && abs(rewardAmount) < 1e15
            ? String(Int64(rewardAmount)) : String(rewardAmount)
    }
}
