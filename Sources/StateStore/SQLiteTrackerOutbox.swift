import GRDB
import Mediation

/// The tracker outbox in the state database: each commit one transaction, synced before it
/// returns (`StateDatabase`'s settings).
public struct SQLiteTrackerOutbox: TrackerOutbox {
    let database: StateDatabase

    public init(_ database: StateDatabase) {
        self.database = database
    }

    public func commit(_ commit: OutboxCommit) async throws -> [OwedPing] {
        try await database.writer.write { db in
            var added: [OwedPing] = []
            for ping in commit.adding {
                var row = OutboxRow(
                    id: nil, url: ping.url, kind: ping.kind.rawValue, createdAt: commit.addedAt, attempts: 0,
                    dueAt: commit.addedAt)
                try row.insert(db)
                if let stored = row.ping { added.append(stored) }
            }
            if !commit.settled.isEmpty { try OutboxRow.deleteAll(db, keys: commit.settled) }
            for change in commit.rescheduled {
                try db.execute(
                    sql: "UPDATE tracker_outbox SET attempts = ?, due_at_ms = ? WHERE id = ?",
                    arguments: [change.attempts, change.dueAt, change.id])
            }
            return added
        }
    }

    public func owed(after id: Int64, limit: Int) throws -> [OwedPing] {
        try database.writer.read { db in
            try OutboxRow.filter(Column("id") > id).order(Column("id")).limit(limit).fetchAll(db).compactMap(\.ping)
        }
    }

    public func count() throws -> Int {
        // A kind this daemon does not know (a newer one wrote it) is neither sent nor counted.
        let kinds = TrackerQueue.Kind.allCases.map(\.rawValue)
        return try database.writer.read { db in
            try OutboxRow.filter(kinds.contains(Column("kind"))).fetchCount(db)
        }
    }
}
