import Mediation
import SQLiteNIO
import SharedTypes
import Timing

/// The reward ledger in the state database. A reward is kept `retention` after it was earned,
/// claimed or not; each record prunes what is older.
public struct SQLiteRewardLedger: RewardLedger {
    let database: StateDatabase
    let retention: Duration

    public init(_ database: StateDatabase, retention: Duration = .seconds(30 * 86_400)) {
        self.database = database
        self.retention = retention
    }

    /// Rewards earned before this, at `now`, are no longer kept.
    private func horizon(_ now: Int64) -> Int64 { now - retention.wholeMilliseconds }

    public func record(_ reward: EarnedReward, callback: String?) async throws -> OwedPing? {
        let horizon = horizon(reward.earnedAt)
        return try await database.write { session in
            try await RewardRow.insert(reward, in: session)
            var ping: OwedPing?
            if let callback {
                ping = try await OutboxRow.insert(url: callback, kind: .ssv, at: reward.earnedAt, in: session)
            }
            try await session.execute("DELETE FROM rewards WHERE earned_at_ms < ?", [.int64(horizon)])
            return ping
        }
    }

    public func rewards(app: String?, state: RewardState, now: Int64) async throws -> [EarnedReward] {
        var sql = "SELECT \(RewardRow.columns) FROM rewards WHERE earned_at_ms >= ?"
        var binds: [SQLiteData] = [.int64(horizon(now))]
        if let app {
            sql += " AND app = ?"
            binds.append(.text(app))
        }
        switch state {
        case .unclaimed: sql += " AND claimed_at_ms IS NULL"
        case .claimed: sql += " AND claimed_at_ms IS NOT NULL"
        case .all: break
        }
        sql += " ORDER BY earned_at_ms, transaction_id"
        let query = sql
        let arguments = binds
        return try await database.session { session in
            try await session.rows(query, arguments).map(RewardRow.reward)
        }
    }

    public func claim(_ transactionID: String, app: String?, now: Int64) async throws -> RewardClaim {
        let horizon = horizon(now)
        return try await database.write { session in
            guard
                let row = try await session.row(
                    "SELECT \(RewardRow.columns) FROM rewards WHERE transaction_id = ?", [.text(transactionID)])
            else { return .notFound }
            var reward = try RewardRow.reward(row)
            guard reward.earnedAt >= horizon, app == nil || reward.app == app else { return .notFound }
            if reward.claimedAt != nil { return .alreadyClaimed(reward) }
            reward.claimedAt = now
            try await session.execute(
                "UPDATE rewards SET claimed_at_ms = ? WHERE transaction_id = ?", [.int64(now), .text(transactionID)])
            return .claimed(reward)
        }
    }
}
