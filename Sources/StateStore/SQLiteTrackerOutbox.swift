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
            try Self.known.filter(Column("id") > id).order(Column("id")).limit(limit).fetchAll(db).compactMap(\.ping)
        }
    }

    public func count() throws -> Int {
        try database.writer.read { db in try Self.known.fetchCount(db) }
    }

    /// The rows of kinds this daemon knows: one a newer daemon wrote is neither sent nor counted.
    private static var known: QueryInterfaceRequest<OutboxRow> {
        OutboxRow.filter(TrackerQueue.Kind.allCases.map(\.rawValue).contains(Column("kind")))
    }
}
