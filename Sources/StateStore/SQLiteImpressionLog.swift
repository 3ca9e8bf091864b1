import GRDB
import Mediation

/// The impressions frequency caps count, in the state database (`capped_impressions`). Each
/// record syncs: it backs the answer to the impression that caused it.
public struct SQLiteImpressionLog: ImpressionLog {
    let database: StateDatabase

    public init(_ database: StateDatabase) {
        self.database = database
    }

    public func record(_ impression: CappedImpression, forgettingBefore horizon: Int64) async throws {
        let row = ImpressionRow(impression)
        try await database.write { db in
            try row.insert(db)
            try ImpressionRow
                .filter(Column("ad_unit") == row.adUnit && Column("app") == row.app && Column("at_ms") < horizon)
                .deleteAll(db)
        }
    }

    public func impressions(since: Int64) throws -> [CappedImpression] {
        try database.write { db in
            try ImpressionRow.filter(Column("at_ms") < since).deleteAll(db)
            return try ImpressionRow.order(Column("at_ms")).fetchAll(db).map(\.impression)
        }
    }
}
