import Foundation
import GRDB
import Mediation
import TestSupport
import Testing

@testable import StateStore

/// The state database on real SQLite files: made with its schema, durable settings in force,
/// and a file it cannot use refused with its name, never replaced.
struct StateDatabaseTests {
    @Test func aNewDatabaseIsMadeInWALModeWithFullSyncAndItsSchema() throws {
        let directory = try TemporaryDirectory()
        let database = try StateDatabase(directory: directory.url)
        #expect(database.path == directory.path("state.sqlite"))
        // The writer's connection is the one that commits.
        let (journal, synchronous, outbox) = try database.writer.writeWithoutTransaction { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try db.tableExists("tracker_outbox")
            )
        }
        #expect(journal == "wal")
        #expect(synchronous == 2)  // FULL: every commit syncs the log
        #expect(outbox)
        // Opened again, it is the same database, its migrations not run twice.
        _ = try StateDatabase(directory: directory.url)
    }

    @Test func eventsAreJournaledWithoutASyncAndTheWriterSyncsAgainAfter() async throws {
        let database = StateDatabase()
        let journal = SQLiteEventJournal(database)
        var event = AdEvent(name: .impression, adID: "a", adUnit: "u", fields: ["amount": .number(2.5)])
        event.sequence = 1
        try await journal.append([(event, 1000)], keep: 10, since: 0)
        let synchronous = try await database.writer.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        #expect(synchronous == 2)
        #expect(try journal.recent().map(\.event) == [event])
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAsItIs() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("state.sqlite")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))
        for attempt in [
            { try StateDatabase(directory: directory.url) as Any }, { try StateDatabase.check(path: path) as Any },
        ] {
            let error = #expect(throws: StateDatabaseError.self) { _ = try attempt() }
            #expect(error?.description.hasPrefix("state database \(path) is not an SQLite database.") == true)
            #expect(error?.description.contains("never replaced: move it aside") == true)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aDatabaseANewerDaemonUpgradedIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("state.sqlite")
        do {
            let database = try StateDatabase(path: path)
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('99 from the future')")
            }
        }
        let error = #expect(throws: StateDatabaseError.self) { try StateDatabase.check(path: path) }
        #expect(error?.reason.contains("upgraded by a newer secure-signalsd") == true)
        #expect(throws: StateDatabaseError.self) { _ = try StateDatabase(path: path) }
    }

    @Test func checkingAMissingFileMakesNothing() throws {
        let directory = try TemporaryDirectory()
        try StateDatabase.check(path: directory.path("state.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("state.sqlite")))
    }

    @Test func oneCommitAddsSettlesAndReschedules() async throws {
        let outbox = SQLiteTrackerOutbox(StateDatabase())
        var commit = OutboxCommit()
        commit.adding = [("http://t/a", .impression), ("http://t/b", .click), ("http://t/c", .win)]
        commit.addedAt = 5_000
        let added = try await outbox.commit(commit).added
        #expect(added.map(\.url) == ["http://t/a", "http://t/b", "http://t/c"])
        #expect(added.allSatisfy { $0.createdAt == 5_000 && $0.dueAt == 5_000 && $0.attempts == 0 })
        var next = OutboxCommit()
        next.settled = [added[0].id]
        next.rescheduled = [(added[1].id, 2, 9_000)]
        _ = try await outbox.commit(next)
        // c is untried; b waits for its next try, due at 9 s.
        #expect(try outbox.untried(after: 0, limit: 100).map(\.url) == ["http://t/c"])
        #expect(try outbox.untriedCount() == 1)
        #expect(try outbox.due(by: 8_999, limit: 100).isEmpty)
        let due = try outbox.due(by: 9_000, limit: 100)
        #expect(due.map(\.url) == ["http://t/b"] && due.first?.attempts == 2 && due.first?.dueAt == 9_000)
        #expect(try outbox.nextDue(after: 0) == 9_000)
        #expect(try outbox.nextDue(after: 9_000) == nil)
        let backlog = try outbox.backlog()
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
        #expect(try outbox.due(by: 10_000, limit: 2).map(\.url) == ["http://t/2", "http://t/3"])
        #expect(try outbox.nextDue(after: 3_000) == 5_000)
        #expect(try outbox.untried(after: 0, limit: 10).map(\.url) == ["http://t/4"])
        #expect(try outbox.backlog().count == 4)
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
        #expect(try outbox.untried(after: 0, limit: 10).map(\.url) == ["http://t/3", "http://t/4", "http://t/5"])
        var next = OutboxCommit()
        next.adding = [("http://t/6", .click)]
        next.maximumOwed = 3
        #expect(try await outbox.commit(next).givenUp == 1)
        #expect(try outbox.untried(after: 0, limit: 10).map(\.url) == ["http://t/4", "http://t/5", "http://t/6"])
        // Within the bound nothing goes.
        var within = OutboxCommit()
        within.settled = [first.added[1].id]
        within.maximumOwed = 3
        #expect(try await outbox.commit(within).givenUp == 0)
        #expect(try outbox.backlog().count == 2)
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
            try outbox.untried(after: 0, limit: 10).map(\.url) == [
                "http://s/1", "http://s/2", "http://t/4", "http://t/5",
            ])
    }

    /// A 0-byte file is not taken as a new database, nor is another program's database.
    @Test func anEmptyOrForeignFileIsRefusedNeverTakenAsNew() throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent(StateDatabase.fileName).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let empty = #expect(throws: StateDatabaseError.self) { try StateDatabase(path: path) }
        #expect(empty?.reason.contains("is empty (0 bytes)") == true)
        #expect(throws: StateDatabaseError.self) { try StateDatabase.check(path: path) }
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0, "left as it was")

        let foreign = directory.url.appendingPathComponent("foreign.sqlite").path
        let other = try DatabaseQueue(path: foreign)
        try other.write { db in try db.execute(sql: "CREATE TABLE songs (title TEXT)") }
        try other.close()
        let refusal = #expect(throws: StateDatabaseError.self) { try StateDatabase(path: foreign) }
        #expect(refusal?.reason.contains("another program made") == true)
    }
}
