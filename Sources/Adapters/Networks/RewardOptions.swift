import Mediation
import SharedTypes

/// Line item options that say what a rewarded ad grants (`reward_type`, by default "reward",
/// and `reward_amount`, by default 1), read alike by every network that serves one.
protocol RewardOptions {
    var rewardType: String { get }
    var rewardAmount: Double { get }
}

extension RewardOptions {
    var reward: Reward { Reward(type: rewardType, amount: rewardAmount) }
}
