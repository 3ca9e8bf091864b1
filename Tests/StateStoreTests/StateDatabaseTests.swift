import Foundation
import Mediation
import SQLiteNIO
import TestSupport
import Testing

@testable import StateStore

/// The state database on real SQLite files: made with its schema, durable settings in force,
/// and a file it cannot use refused with its name, never replaced.
struct StateDatabaseTests {
    @Test func aNewDatabaseIsMadeInWALModeWithFullSyncAndItsSchema() async throws {
        let directory = try TemporaryDirectory()
        let database = try await StateDatabase.open(directory: directory.url)
        #expect(database.path == directory.path("state.sqlite"))
        let (journal, synchronous, version, outbox) = try await database.session { session in
            (
                try await session.value("PRAGMA journal_mode")?.string,
                try await session.value("PRAGMA synchronous")?.integer,
                try await session.value("PRAGMA user_version")?.integer,
                try await session.value("SELECT count(*) FROM sqlite_master WHERE name = 'tracker_outbox'")?.integer
            )
        }
        #expect(journal == "wal")
        #expect(synchronous == 2)  // FULL: every commit syncs the log
        #expect(version == StateSchema.migrations.count)
        #expect(outbox == 1)
        // Opened again, it is the same database, its migrations not run twice.
        _ = try await StateDatabase.open(directory: directory.url)
    }

    @Test func eventsAreJournaledWithoutASyncAndTheWriterSyncsAgainAfter() async throws {
        let database = StateDatabase()
        let journal = SQLiteEventJournal(database)
        var event = AdEvent(name: .impression, adID: "a", adUnit: "u", fields: ["amount": .number(2.5)])
        event.sequence = 1
        try await journal.append([(event, 1000)], keep: 10, since: 0)
        let synchronous = try await database.session { session in
            try await session.value("PRAGMA synchronous")?.integer
        }
        #expect(synchronous == 2)
        #expect(try await journal.recent().map(\.event) == [event])
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAsItIs() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("state.sqlite")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))
        let attempts: [@Sendable () async throws -> Void] = [
            { _ = try await StateDatabase.open(directory: directory.url) },
            { try await StateDatabase.check(path: path) },
        ]
        for attempt in attempts {
            let error = await #expect(throws: StateDatabaseError.self) { try await attempt() }
            #expect(error?.description.hasPrefix("state database \(path) is not an SQLite database.") == true)
            #expect(error?.description.contains("never replaced: move it aside") == true)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aDatabaseANewerDaemonUpgradedIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("state.sqlite")
        do {
            let database = try await StateDatabase.open(path: path)
            try await database.session { session in
                try await session.execute("PRAGMA user_version = \(StateSchema.migrations.count + 1)")
            }
        }
        let error = await #expect(throws: StateDatabaseError.self) { try await StateDatabase.check(path: path) }
        #expect(error?.reason.contains("upgraded by a newer secure-signalsd") == true)
        await #expect(throws: StateDatabaseError.self) { _ = try await StateDatabase.open(path: path) }
    }

    /// A file a GRDB-era daemon wrote after a migration this daemon does not know (a newer
    /// GRDB-era release's) is a newer daemon's too.
    @Test func aGRDBEraFileWithAMigrationFromTheFutureIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("state.sqlite")
        let names = StateSchema.migrations.map(\.name) + ["99 from the future"]
        try await Self.make(
            path,
            ["CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)"]
                + names.map { "INSERT INTO grdb_migrations VALUES ('\($0)')" })
        let error = await #expect(throws: StateDatabaseError.self) { _ = try await StateDatabase.open(path: path) }
        #expect(error?.reason.contains("upgraded by a newer secure-signalsd") == true)
    }

    /// A file whose pages SQLite's `quick_check` finds damaged is refused as such, left as it is.
    @Test func aDamagedFileIsRefusedAndLeftAsItIs() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("state.sqlite")
        let rows = (1...400).map { "INSERT INTO songs VALUES ('\(String(repeating: "la", count: 40)) \($0)')" }
        try await Self.make(
            path, ["PRAGMA page_size = 1024", "CREATE TABLE songs (title TEXT)", "BEGIN"] + rows + ["COMMIT"])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // The second page on: the table's b-tree, its header and cells overwritten.
        for offset in 1024..<min(bytes.count, 1024 * 8) { bytes[offset] = UInt8(truncatingIfNeeded: offset &* 131) }
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = await #expect(throws: StateDatabaseError.self) { try await StateDatabase.check(path: path) }
        #expect(error?.reason.contains("is damaged") == true, "\(String(describing: error))")
        await #expect(throws: StateDatabaseError.self) { _ = try await StateDatabase.open(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "left as it was")
    }

    /// Makes an SQLite file at `path` with `statements`, through a connection of its own.
    static func make(_ path: String, _ statements: [String]) async throws {
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        for statement in statements { _ = try await connection.query(statement) }
        try await connection.close()
    }

    @Test func checkingAMissingFileMakesNothing() async throws {
        let directory = try TemporaryDirectory()
        try await StateDatabase.check(path: directory.path("state.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("state.sqlite")))
    }

    @Test func oneCommitAddsSettlesAndReschedules() async throws {
        let outbox = SQLiteTrackerOutbox(StateDatabase())
        var commit = OutboxCommit()
        commit.adding = [("http://t/a", .impression), ("http://t/b", .click), ("http://t/c", .win)]
        commit.addedAt = 5_000
        let added = try await outbox.commit(commit).added
        try #require(added.map(\.url) == ["http://t/a", "http://t/b", "http://t/c"])
        #expect(added.allSatisfy { $0.createdAt == 5_000 && $0.dueAt == 5_000 && $0.attempts == 0 })
        var next = OutboxCommit()
        next.settled = [added[0].id]
        next.rescheduled = [(added[1].id, 2, 9_000)]
        _ = try await outbox.commit(next)
        // c is untried; b waits for its next try, due at 9 s.
        #expect(try await outbox.untried(after: 0, limit: 100).map(\.url) == ["http://t/c"])
        #expect(try await outbox.untriedCount() == 1)
        #expect(try await outbox.due(by: 8_999, limit: 100).isEmpty)
        let due = try await outbox.due(by: 9_000, limit: 100)
        #expect(due.map(\.url) == ["http://t/b"] && due.first?.attempts == 2 && due.first?.dueAt == 9_000)
        #expect(try await outbox.nextDue(after: 0) == 9_000)
        #expect(try await outbox.nextDue(after: 9_000) == nil)
        let backlog = try await outbox.backlog()
        #expect(backlog.count == 2 && backlog.oldest == 5_000)
    }

    @Test func retriesAreTakenEarliestDueFirst() async throws {
        let outbox = SQLiteTrackerOutbox(StateDatabase())
        var commit = OutboxCommit()
        commit.adding = (1...4).map { ("http://t/\($0)", .impression) }
        commit.addedAt = 1_000
        let added = try await outbox.commit(commit).added
        var next = OutboxCommit()
        next.rescheduled = [(added[0].id, 1, 7_000), (added[1].id, 1, 3_000), (added[2].id, 3, 5_000)]
        _ = try await outbox.commit(next)
        #expect(try await outbox.due(by: 10_000, limit: 2).map(\.url) == ["http://t/2", "http://t/3"])
        #expect(try await outbox.nextDue(after: 3_000) == 5_000)
        #expect(try await outbox.untried(after: 0, limit: 10).map(\.url) == ["http://t/4"])
        #expect(try await outbox.backlog().count == 4)
    }

    /// `trackers.max_owed`: past it the oldest owed pings are given up in the same commit, and
    /// counted; the newest stay.
    @Test func theOutboxGivesUpItsOldestPingsPastItsBound() async throws {
        let outbox = SQLiteTrackerOutbox(StateDatabase())
        var commit = OutboxCommit()
        commit.adding = (1...5).map { ("http://t/\($0)", .impression) }
        commit.maximumOwed = 3
        let first = try await outbox.commit(commit)
        #expect(first.added.map(\.url) == ["http://t/3", "http://t/4", "http://t/5"] && first.givenUp == 2)
        #expect(try await outbox.untried(after: 0, limit: 10).map(\.url) == ["http://t/3", "http://t/4", "http://t/5"])
        var next = OutboxCommit()
        next.adding = [("http://t/6", .click)]
        next.maximumOwed = 3
        #expect(try await outbox.commit(next).givenUp == 1)
        #expect(try await outbox.untried(after: 0, limit: 10).map(\.url) == ["http://t/4", "http://t/5", "http://t/6"])
        // Within the bound nothing goes.
        var within = OutboxCommit()
        within.settled = [first.added[1].id]
        within.maximumOwed = 3
        #expect(try await outbox.commit(within).givenUp == 0)
        #expect(try await outbox.backlog().count == 2)
    }

    /// SSV callbacks stand for rewards: the bound gives up tracker pings only, and a ping added
    /// and given up in one commit is not handed out to be sent.
    @Test func theOutboxBoundSparesSSVCallbacksAndHandsOutNoPingItGaveUp() async throws {
        let outbox = SQLiteTrackerOutbox(StateDatabase())
        var first = OutboxCommit()
        first.adding = [("http://s/1", .ssv), ("http://t/1", .impression), ("http://s/2", .ssv)]
        _ = try await outbox.commit(first)
        var next = OutboxCommit()
        next.adding = (2...5).map { ("http://t/\($0)", .click) }
        next.maximumOwed = 4
        let committed = try await outbox.commit(next)
        #expect(committed.givenUp == 3, "t/1, t/2 and t/3 go; both callbacks stay")
        #expect(committed.added.map(\.url) == ["http://t/4", "http://t/5"])
        #expect(
            try await outbox.untried(after: 0, limit: 10).map(\.url) == [
                "http://s/1", "http://s/2", "http://t/4", "http://t/5",
            ])
    }

    /// A 0-byte file is not taken as a new database, nor is another program's database.
    @Test func anEmptyOrForeignFileIsRefusedNeverTakenAsNew() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent(StateDatabase.fileName).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let empty = await #expect(throws: StateDatabaseError.self) { _ = try await StateDatabase.open(path: path) }
        #expect(empty?.reason.contains("is empty (0 bytes)") == true)
        await #expect(throws: StateDatabaseError.self) { try await StateDatabase.check(path: path) }
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0, "left as it was")

        let foreign = directory.url.appendingPathComponent("foreign.sqlite").path
        try await Self.make(foreign, ["CREATE TABLE songs (title TEXT)"])
        let refusal = await #expect(throws: StateDatabaseError.self) { _ = try await StateDatabase.open(path: foreign) }
        #expect(refusal?.reason.contains("another program made") == true)

        // Another program's file that keeps a user_version of its own (3, or above ours) is not
        // taken for one of ours, upgraded or refused as a newer daemon's.
        for version in [3, 99] {
            let versioned = directory.url.appendingPathComponent("versioned-\(version).sqlite").path
            try await Self.make(versioned, ["CREATE TABLE songs (title TEXT)", "PRAGMA user_version = \(version)"])
            let refused = await #expect(throws: StateDatabaseError.self) {
                _ = try await StateDatabase.open(path: versioned)
            }
            #expect(refused?.reason.contains("another program made") == true, "\(version): \(refused?.reason ?? "")")
        }
    }
}
