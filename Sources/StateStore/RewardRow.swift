import Mediation
import SQLiteNIO
import SharedTypes

/// A row of `rewards`: one earned reward.
enum RewardRow {
    static let columns =
        "transaction_id, ad_id, ad_unit, reward_type, reward_amount, custom_data, user_id, app, earned_at_ms, claimed_at_ms"

    static func reward(_ row: SQLiteRow) throws -> EarnedReward {
        EarnedReward(
            transactionID: try row.text("transaction_id"), adID: try row.text("ad_id"),
            adUnit: try row.text("ad_unit"), rewardType: try row.text("reward_type"),
            rewardAmount: try row.double("reward_amount"), customData: try row.optionalText("custom_data"),
            userID: try row.optionalText("user_id"), app: try row.optionalText("app"),
            earnedAt: try row.int64("earned_at_ms"), claimedAt: try row.optionalInt64("claimed_at_ms"))
    }

    static func insert(_ reward: EarnedReward, in session: StateSession) async throws {
        try await session.execute(
            "INSERT INTO rewards (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(reward.transactionID), .text(reward.adID), .text(reward.adUnit), .text(reward.rewardType),
                .float(reward.rewardAmount), .nullableText(reward.customData), .nullableText(reward.userID),
                .nullableText(reward.app), .int64(reward.earnedAt), .int64(reward.claimedAt),
            ])
    }
}
