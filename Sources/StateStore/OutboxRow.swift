import Mediation
import SQLiteNIO

/// A row of `tracker_outbox`: one ping the daemon owes.
struct OutboxRow {
    static let columns = "id, url, kind, created_at_ms, attempts, due_at_ms"

    var id: Int64
    var url: String
    var kind: String
    var createdAt: Int64
    var attempts: Int
    var dueAt: Int64

    init(_ row: SQLiteRow) throws {
        id = try row.int64("id")
        url = try row.text("url")
        kind = try row.text("kind")
        createdAt = try row.int64("created_at_ms")
        attempts = Int(try row.int64("attempts"))
        dueAt = try row.int64("due_at_ms")
    }

    /// The ping it stores; nil for a kind this daemon does not know (written by a newer one).
    var ping: OwedPing? {
        guard let kind = TrackerQueue.Kind(rawValue: kind) else { return nil }
        return OwedPing(id: id, url: url, kind: kind, createdAt: createdAt, attempts: attempts, dueAt: dueAt)
    }

    /// Stores a ping owed since `at`, never tried; answers it with its id.
    static func insert(url: String, kind: TrackerQueue.Kind, at: Int64, in session: StateSession) async throws
        -> OwedPing?
    {
        let row = try await session.row(
            "INSERT INTO tracker_outbox (url, kind, created_at_ms, attempts, due_at_ms) VALUES (?, ?, ?, 0, ?) RETURNING \(columns)",
            [.text(url), .text(kind.rawValue), .int64(at), .int64(at)])
        return try row.map(OutboxRow.init)?.ping
    }
}
