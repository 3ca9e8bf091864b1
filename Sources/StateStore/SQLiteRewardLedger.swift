import GRDB
import Mediation
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

    public func record(_ reward: EarnedReward, callback: String?) throws -> OwedPing? {
        let horizon = horizon(reward.earnedAt)
        return try database.write { db in
            try RewardRow(reward).insert(db)
            var ping: OwedPing?
            if let callback {
                var row = OutboxRow(
                    id: nil, url: callback, kind: TrackerQueue.Kind.ssv.rawValue, createdAt: reward.earnedAt,
                    attempts: 0, dueAt: reward.earnedAt)
                try row.insert(db)
                ping = row.ping
            }
            try RewardRow.filter(Column("earned_at_ms") < horizon).deleteAll(db)
            return ping
        }
    }

    public func rewards(app: String?, state: RewardState, now: Int64) async throws -> [EarnedReward] {
        let horizon = horizon(now)
        return try await database.writer.read { db in
            var request = RewardRow.order(Column("earned_at_ms"), Column("transaction_id"))
                .filter(Column("earned_at_ms") >= horizon)
            if let app { request = request.filter(Column("app") == app) }
            switch state {
            case .unclaimed: request = request.filter(Column("claimed_at_ms") == nil)
            case .claimed: request = request.filter(Column("claimed_at_ms") != nil)
            case .all: break
            }
            return try request.fetchAll(db).map(\.reward)
        }
    }

    public func claim(_ transactionID: String, app: String?, now: Int64) async throws -> RewardClaim {
        let horizon = horizon(now)
        return try await database.write { db in
            guard var row = try RewardRow.fetchOne(db, key: transactionID), row.earnedAt >= horizon,
                app == nil || row.app == app
            else { return .notFound }
            if row.claimedAt != nil { return .alreadyClaimed(row.reward) }
            row.claimedAt = now
            try row.update(db)
            return .claimed(row.reward)
        }
    }
}
