import GRDB
import Mediation

/// A row of `tracker_outbox`: one ping the daemon owes.
struct OutboxRow: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "tracker_outbox"

    var id: Int64?
    var url: String
    var kind: String
    var createdAt: Int64
    var attempts: Int
    var dueAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, url, kind, attempts
        case createdAt = "created_at_ms"
        case dueAt = "due_at_ms"
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The ping it stores; nil for a kind this daemon does not know (written by a newer one).
    var ping: OwedPing? {
        guard let id, let kind = TrackerQueue.Kind(rawValue: kind) else { return nil }
        return OwedPing(id: id, url: url, kind: kind, createdAt: createdAt, attempts: attempts, dueAt: dueAt)
    }
}
