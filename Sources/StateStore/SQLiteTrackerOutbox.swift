import GRDB
import Mediation

/// The tracker outbox in the state database: each commit one transaction, synced before it
/// returns (`StateDatabase`'s settings).
public struct SQLiteTrackerOutbox: TrackerOutbox {
    let database: StateDatabase

    public init(_ database: StateDatabase) {
        self.database = database
    }

    public func commit(_ commit: OutboxCommit) async throws -> OutboxCommitted {
        try await database.write { db in
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
            let givenUp = try Self.giveUpOldest(db, keeping: commit.maximumOwed)
            guard let oldestKept = givenUp.oldestKept else {
                return OutboxCommitted(added: added, givenUp: givenUp.count)
            }
            // A ping added and given up in one commit is not handed out to be sent.
            return OutboxCommitted(
                added: added.filter { $0.kind == .ssv || $0.id >= oldestKept }, givenUp: givenUp.count)
        }
    }

    /// Deletes the oldest tracker pings beyond `maximum` owed; returns how many, and the id of
    /// the oldest ping kept (nil when none went). SSV callbacks are never given up for room:
    /// each stands for a reward, and there is one per reward, not per impression. The ids'
    /// span bounds the count from above without a scan, so the table is counted only when it
    /// may be over.
    private static func giveUpOldest(_ db: Database, keeping maximum: Int) throws -> (count: Int, oldestKept: Int64?) {
        guard maximum < Int.max,
            let row = try Row.fetchOne(db, sql: "SELECT min(id), max(id) FROM tracker_outbox"),
            let low: Int64 = row[0], let high: Int64 = row[1], high - low + 1 > maximum
        else { return (0, nil) }
        let over = try OutboxRow.fetchCount(db) - maximum
        guard over > 0 else { return (0, nil) }
        // Tracker pings of the kinds this daemon knows (a newer daemon's rows are left alone).
        let kinds = TrackerQueue.Kind.allCases.filter { $0 != .ssv }.map(\.rawValue)
        let given = kinds.map { _ in "?" }.joined(separator: ", ")
        let arguments = StatementArguments(kinds)
        // The over-th oldest, or the newest when there are fewer.
        guard
            let last = try Int64.fetchOne(
                db, sql: "SELECT id FROM tracker_outbox WHERE kind IN (\(given)) ORDER BY id LIMIT 1 OFFSET ?",
                arguments: arguments + [over - 1])
                ?? Int64.fetchOne(
                    db, sql: "SELECT max(id) FROM tracker_outbox WHERE kind IN (\(given))", arguments: arguments)
        else { return (0, nil) }
        try db.execute(
            sql: "DELETE FROM tracker_outbox WHERE kind IN (\(given)) AND id <= ?", arguments: arguments + [last])
        return (db.changesCount, last + 1)
    }

    public func untried(after id: Int64, limit: Int) throws -> [OwedPing] {
        try database.writer.read { db in
            try Self.untried.filter(Column("id") > id).order(Column("id")).limit(limit).fetchAll(db)
                .compactMap(\.ping)
        }
    }

    public func untriedCount() throws -> Int {
        try database.writer.read { db in try Self.untried.fetchCount(db) }
    }

    public func due(by time: Int64, limit: Int) throws -> [OwedPing] {
        try database.writer.read { db in
            try Self.retries.filter(Column("due_at_ms") <= time).order(Column("due_at_ms"), Column("id"))
                .limit(limit).fetchAll(db).compactMap(\.ping)
        }
    }

    public func nextDue(after time: Int64) throws -> Int64? {
        try database.writer.read { db in
            try Self.retries.filter(Column("due_at_ms") > time).select(min(Column("due_at_ms")), as: Int64?.self)
                .fetchOne(db) ?? nil
        }
    }

    /// The count scans the table; the oldest is the first row (ids grow with time), not a scan.
    public func backlog() throws -> (count: Int, oldest: Int64?) {
        try database.writer.read { db in
            let count = try Self.known.fetchCount(db)
            let oldest = try Self.known.order(Column("id")).select(Column("created_at_ms"), as: Int64.self).fetchOne(db)
            return (count, oldest)
        }
    }

    /// Known rows never tried, and those tried before (they wait for `due_at_ms`).
    /// (`attempts > 0` as literal SQL: the partial index `tracker_outbox_retries` is chosen
    /// only for the very condition it was made with.)
    private static var untried: QueryInterfaceRequest<OutboxRow> { known.filter(Column("attempts") == 0) }
    private static var retries: QueryInterfaceRequest<OutboxRow> { known.filter(sql: "attempts > 0") }

    /// The rows of kinds this daemon knows: one a newer daemon wrote is neither sent nor counted.
    private static var known: QueryInterfaceRequest<OutboxRow> {
        OutboxRow.filter(TrackerQueue.Kind.allCases.map(\.rawValue).contains(Column("kind")))
    }
}
