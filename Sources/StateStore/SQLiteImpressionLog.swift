import Mediation
import SQLiteNIO

/// The impressions frequency caps count, in the state database (`capped_impressions`). Each
/// record syncs: it backs the answer to the impression that caused it.
public struct SQLiteImpressionLog: ImpressionLog {
    let database: StateDatabase

    public init(_ database: StateDatabase) {
        self.database = database
    }

    public func record(_ impression: CappedImpression, forgettingBefore horizon: Int64) async throws {
        try await database.write { session in
            try await session.execute(
                "INSERT INTO capped_impressions (ad_unit, app, at_ms) VALUES (?, ?, ?)",
                [.text(impression.adUnit), .nullableText(impression.app), .int64(impression.at)])
            try await session.execute(
                "DELETE FROM capped_impressions WHERE ad_unit = ? AND app IS ? AND at_ms < ?",
                [.text(impression.adUnit), .nullableText(impression.app), .int64(horizon)])
        }
    }

    public func impressions(since: Int64) async throws -> [CappedImpression] {
        try await database.write { session in
            try await session.execute("DELETE FROM capped_impressions WHERE at_ms < ?", [.int64(since)])
            return try await session.rows("SELECT ad_unit, app, at_ms FROM capped_impressions ORDER BY at_ms").map {
                CappedImpression(
                    adUnit: try $0.text("ad_unit"), app: try $0.optionalText("app"), at: try $0.int64("at_ms"))
            }
        }
    }
}
