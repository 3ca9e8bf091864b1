import FoundationEssentials
import Mediation
import SQLiteNIO

/// The event stream's kept events in the state database (`events`): their fields as the JSON
/// the stream sends.
public struct SQLiteEventJournal: EventJournal {
    let database: StateDatabase

    public init(_ database: StateDatabase) {
        self.database = database
    }

    public func recent() async throws -> [(event: AdEvent, at: Int64)] {
        let rows = try await database.session { session in
            try await session.rows(
                "SELECT sequence, name, ad_id, ad_unit, app, fields, at_ms FROM events ORDER BY sequence")
        }
        return rows.compactMap { row in
            guard let name = (try? row.text("name")).flatMap(AdEvent.Name.init(rawValue:)),
                let text = try? row.text("fields"),
                let fields = try? JSONDecoder().decode([String: EventField].self, from: Data(text.utf8)),
                let unit = try? row.text("ad_unit"), let sequence = try? row.int64("sequence"),
                let at = try? row.int64("at_ms")
            else { return nil }
            var event = AdEvent(
                name: name, adID: try? row.optionalText("ad_id"), adUnit: unit, app: try? row.optionalText("app"),
                fields: fields)
            event.sequence = UInt64(sequence)
            return (event, at)
        }
    }

    public func append(_ events: [(event: AdEvent, at: Int64)], keep: Int, since: Int64) async throws {
        let rows = try events.map { event, at in
            (event, at, String(decoding: try JSONEncoder().encode(event.fields), as: UTF8.self))
        }
        // An event is not an acknowledgement: its commit does not sync, so that it never makes
        // a call waiting on the outbox's sync wait for a second one.
        try await database.session { session in
            try await session.execute("PRAGMA synchronous = NORMAL")
            do {
                try await StateSchema.transaction(session) {
                    try await Self.insert(rows, into: session, keep: keep, since: since)
                }
            } catch {
                try await session.execute("PRAGMA synchronous = FULL")
                throw error
            }
            // Back before any other write: the outbox's and the ledger's commits must sync.
            try await session.execute("PRAGMA synchronous = FULL")
        }
    }

    public func reserved() async throws -> UInt64 {
        try await database.session { session in
            UInt64(try await session.value("SELECT value FROM meta WHERE key = 'events_reserved'")?.integer ?? 0)
        }
    }

    public func reserve(through number: UInt64) async throws {
        try await database.write { session in
            try await session.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('events_reserved', ?)",
                [.int64(Int64(clamping: number))])
        }
    }

    private static func insert(_ rows: [(AdEvent, Int64, String)], into session: StateSession, keep: Int, since: Int64)
        async throws
    {
        for (event, at, fields) in rows {
            try await session.execute(
                "INSERT OR REPLACE INTO events (sequence, name, ad_id, ad_unit, app, fields, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .int64(Int64(event.sequence)), .text(event.name.rawValue), .nullableText(event.adID),
                    .text(event.adUnit), .nullableText(event.app), .text(fields), .int64(at),
                ])
        }
        if let newest = rows.last?.0.sequence {
            try await session.execute(
                "DELETE FROM events WHERE sequence <= ? OR at_ms < ?",
                [.int64(Int64(newest) - Int64(keep)), .int64(since)])
        }
    }
}
