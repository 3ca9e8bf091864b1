import Foundation
import GRDB
import Mediation

/// The event stream's kept events in the state database (`events`): their fields as the JSON
/// the stream sends.
public struct SQLiteEventJournal: EventJournal {
    let database: StateDatabase

    public init(_ database: StateDatabase) {
        self.database = database
    }

    public func recent() throws -> [(event: AdEvent, at: Int64)] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM events ORDER BY sequence").compactMap { row in
                guard let name = AdEvent.Name(rawValue: row["name"]),
                    let fields = try? JSONDecoder().decode(
                        [String: EventField].self, from: Data((row["fields"] as String).utf8))
                else { return nil }
                var event = AdEvent(
                    name: name, adID: row["ad_id"], adUnit: row["ad_unit"], app: row["app"], fields: fields)
                event.sequence = UInt64(row["sequence"] as Int64)
                return (event, row["at_ms"])
            }
        }
    }

    public func append(_ events: [(event: AdEvent, at: Int64)], keep: Int, since: Int64) async throws {
        let rows = try events.map { event, at in
            (event, at, String(decoding: try JSONEncoder().encode(event.fields), as: UTF8.self))
        }
        // An event is not an acknowledgement: its commit does not sync, so that it never makes
        // a call waiting on the outbox's sync wait for a second one.
        try await database.writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            do {
                try db.inTransaction {
                    try Self.insert(rows, into: db, keep: keep, since: since)
                    return .commit
                }
            } catch {
                try db.execute(sql: "PRAGMA synchronous = FULL")
                throw error
            }
            // Back before any other write: the outbox's and the ledger's commits must sync.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
    }

    public func reserved() throws -> UInt64 {
        try database.writer.read { db in
            UInt64(try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'events_reserved'") ?? 0)
        }
    }

    public func reserve(through number: UInt64) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('events_reserved', ?)",
                arguments: [Int64(clamping: number)])
        }
    }

    private static func insert(_ rows: [(AdEvent, Int64, String)], into db: Database, keep: Int, since: Int64)
        throws
    {
        for (event, at, fields) in rows {
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO events (sequence, name, ad_id, ad_unit, app, fields, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    Int64(event.sequence), event.name.rawValue, event.adID, event.adUnit, event.app, fields, at,
                ])
        }
        if let newest = rows.last?.0.sequence {
            try db.execute(
                sql: "DELETE FROM events WHERE sequence <= ? OR at_ms < ?",
                arguments: [Int64(newest) - Int64(keep), since])
        }
    }
}
