import Mediation
import SQLiteNIO

/// The tracker outbox in the state database: each commit one transaction, synced before it
/// returns (`StateDatabase`'s settings).
public struct SQLiteTrackerOutbox: TrackerOutbox {
    let database: StateDatabase

    public init(_ database: StateDatabase) {
        self.database = database
    }

    public func commit(_ commit: OutboxCommit) async throws -> OutboxCommitted {
        try await database.write { session in
            var added: [OwedPing] = []
            for ping in commit.adding {
                if let stored = try await OutboxRow.insert(
                    url: ping.url, kind: ping.kind, at: commit.addedAt, in: session)
                {
                    added.append(stored)
                }
            }
            if !commit.settled.isEmpty {
                let marks = commit.settled.map { _ in "?" }.joined(separator: ", ")
                try await session.execute(
                    "DELETE FROM tracker_outbox WHERE id IN (\(marks))", commit.settled.map { .int64($0) })
            }
            for change in commit.rescheduled {
                try await session.execute(
                    "UPDATE tracker_outbox SET attempts = ?, due_at_ms = ? WHERE id = ?",
                    [.int64(Int64(change.attempts)), .int64(change.dueAt), .int64(change.id)])
            }
            let givenUp = try await Self.giveUpOldest(session, keeping: commit.maximumOwed)
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
    private static func giveUpOldest(_ session: StateSession, keeping maximum: Int) async throws -> (
        count: Int, oldestKept: Int64?
    ) {
        guard maximum < Int.max,
            let span = try await session.row("SELECT min(id) AS low, max(id) AS high FROM tracker_outbox"),
            let low = try span.optionalInt64("low"), let high = try span.optionalInt64("high"),
            high - low + 1 > maximum
        else { return (0, nil) }
        let count = Int(try await session.value("SELECT count(*) FROM tracker_outbox")?.integer ?? 0)
        let over = count - maximum
        guard over > 0 else { return (0, nil) }
        // The over-th oldest, or the newest when there are fewer.
        let nth = try await session.value(
            "SELECT id FROM tracker_outbox WHERE \(trackerKinds) ORDER BY id LIMIT 1 OFFSET ?",
            [.int64(Int64(over - 1))])
        let newest = try await session.value("SELECT max(id) FROM tracker_outbox WHERE \(trackerKinds)")
        guard let last = (nth ?? newest)?.integer.map(Int64.init) else { return (0, nil) }
        let deleted = try await session.rows(
            "DELETE FROM tracker_outbox WHERE \(trackerKinds) AND id <= ? RETURNING id", [.int64(last)])
        return (deleted.count, last + 1)
    }

    public func untried(after id: Int64, limit: Int) async throws -> [OwedPing] {
        try await pings(
            "SELECT \(OutboxRow.columns) FROM tracker_outbox WHERE \(Self.known) AND attempts = 0 AND id > ? ORDER BY id LIMIT ?",
            [.int64(id), .int64(Int64(limit))])
    }

    public func untriedCount() async throws -> Int {
        try await database.session { session in
            Int(
                try await session.value("SELECT count(*) FROM tracker_outbox WHERE \(Self.known) AND attempts = 0")?
                    .integer ?? 0)
        }
    }

    public func due(by time: Int64, limit: Int) async throws -> [OwedPing] {
        try await pings(
            "SELECT \(OutboxRow.columns) FROM tracker_outbox WHERE \(Self.known) AND attempts > 0 AND due_at_ms <= ? ORDER BY due_at_ms, id LIMIT ?",
            [.int64(time), .int64(Int64(limit))])
    }

    public func nextDue(after time: Int64) async throws -> Int64? {
        try await database.session { session in
            try await session.value(
                "SELECT min(due_at_ms) FROM tracker_outbox WHERE \(Self.known) AND attempts > 0 AND due_at_ms > ?",
                [.int64(time)]
            )?.integer.map(Int64.init)
        }
    }

    /// The count scans the table; the oldest is the first row (ids grow with time), not a scan.
    public func backlog() async throws -> (count: Int, oldest: Int64?) {
        try await database.read { session in
            let count = try await session.value("SELECT count(*) FROM tracker_outbox WHERE \(Self.known)")
            let oldest = try await session.value(
                "SELECT created_at_ms FROM tracker_outbox WHERE \(Self.known) ORDER BY id LIMIT 1")
            return (Int(count?.integer ?? 0), oldest?.integer.map(Int64.init))
        }
    }

    private func pings(_ sql: String, _ binds: [SQLiteData]) async throws -> [OwedPing] {
        try await database.session { session in
            try await session.rows(sql, binds).compactMap { try OutboxRow($0).ping }
        }
    }

    /// The rows of kinds this daemon knows: one a newer daemon wrote is neither sent nor
    /// counted. (`attempts > 0` is written as such: the partial index `tracker_outbox_retries`
    /// is chosen only for the very condition it was made with.)
    private static let known = "kind IN (\(sqlList(TrackerQueue.Kind.allCases.map(\.rawValue))))"

    /// Tracker pings of the kinds this daemon knows (a newer daemon's rows are left alone).
    private static let trackerKinds =
        "kind IN (\(sqlList(TrackerQueue.Kind.allCases.filter { $0 != .ssv }.map(\.rawValue))))"

    /// The kinds as SQL string literals (they are this daemon's own names: no quote in them).
    private static func sqlList(_ names: [String]) -> String {
        names.map { "'\($0.replacing("'", with: "''"))'" }.joined(separator: ", ")
    }
}
