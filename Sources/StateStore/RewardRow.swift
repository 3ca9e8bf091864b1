import GRDB
import Mediation
import SharedTypes

/// A row of `rewards`: one earned reward.
struct RewardRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "rewards"

    var transactionID: String
    var adID: String
    var adUnit: String
    var rewardType: String
    var rewardAmount: Double
    var customData: String?
    var userID: String?
    var app: String?
    var earnedAt: Int64
    var claimedAt: Int64?

    enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case adID = "ad_id"
        case adUnit = "ad_unit"
        case rewardType = "reward_type"
        case rewardAmount = "reward_amount"
        case customData = "custom_data"
        case userID = "user_id"
        case app
        case earnedAt = "earned_at_ms"
        case claimedAt = "claimed_at_ms"
    }

    init(_ reward: EarnedReward) {
        transactionID = reward.transactionID
        adID = reward.adID
        adUnit = reward.adUnit
        rewardType = reward.rewardType
        rewardAmount = reward.rewardAmount
        customData = reward.customData
        userID = reward.userID
        app = reward.app
        earnedAt = reward.earnedAt
        claimedAt = reward.claimedAt
    }

    var reward: EarnedReward {
        EarnedReward(
            transactionID: transactionID, adID: adID, adUnit: adUnit, rewardType: rewardType,
            rewardAmount: rewardAmount, customData: customData, userID: userID,
            app: app, earnedAt: earnedAt, claimedAt: claimedAt)
    }
}
