import Foundation
import SQLiteNIO
import SharedTypes
import TestSupport
import Testing
import Timing

@testable import StateStore

/// The privacy states on real SQLite files: kept across a reopen, replaced and deleted one
/// scope at a time, an unreadable row reported without hiding the others.
struct PrivacyRecordsTests {
    static let start: Int64 = 1_700_000_000_000
    static let news = PrivacyState(
        limitAdTracking: false, tcfConsent: "CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA",
        addtlConsent: "2~1.35.41.101~dv.9.21.81")
    static let user = PrivacyState(limitAdTracking: true, gpp: "DBABMA~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA")
    static let device = PrivacyState(limitAdTracking: false, gdprApplies: true, gpc: true, coppa: false)

    static func records(_ database: StateDatabase, clock: ManualClock = ManualClock()) -> SQLitePrivacyRecords {
        SQLitePrivacyRecords(database, clock: WallClock(clock: clock, start: start))
    }

    @Test func theDeviceAndTwoAppsAreReadBackAfterAReopen() async throws {
        let directory = try TemporaryDirectory()
        do {
            let clock = ManualClock()
            let records = Self.records(try await StateDatabase.open(directory: directory.url), clock: clock)
            try await records.set(Self.device, for: .device)
            clock.advance(by: .seconds(2))
            try await records.set(Self.news, for: .app("tv.example.news"))
            try await records.set(Self.user, for: .app("uid:1000"))
        }
        let database = try await StateDatabase.open(directory: directory.url)
        let stored = try await Self.records(database).all()
        #expect(
            stored
                == StoredPrivacy(
                    device: Self.device, apps: ["tv.example.news": Self.news, "uid:1000": Self.user]))
        // The device's row has the empty scope; each row says when it was set, in wall-clock ms.
        let rows = try await database.read { session in
            try await session.rows("SELECT scope, set_at_ms FROM privacy ORDER BY scope")
                .map { (try $0.text("scope"), try $0.int64("set_at_ms")) }
        }
        #expect(rows.map(\.0) == ["", "tv.example.news", "uid:1000"])
        #expect(rows.map(\.1) == [Self.start, Self.start + 2_000, Self.start + 2_000])
    }

    @Test func aLaterSetReplacesAndNilDeletes() async throws {
        let records = Self.records(StateDatabase())
        try await records.set(Self.news, for: .app("tv.example.news"))
        try await records.set(Self.user, for: .app("tv.example.news"))
        try await records.set(Self.device, for: .device)
        #expect(try await records.all() == StoredPrivacy(device: Self.device, apps: ["tv.example.news": Self.user]))
        try await records.set(nil, for: .device)
        #expect(try await records.all() == StoredPrivacy(apps: ["tv.example.news": Self.user]))
        try await records.set(nil, for: .app("tv.example.news"))
        try await records.set(nil, for: .app("tv.example.never-set"))
        #expect(try await records.all() == StoredPrivacy())
    }

    @Test func anEmptyAppIDIsRefusedAndNeverTakenForTheDevice() async throws {
        let records = Self.records(StateDatabase())
        try await records.set(Self.device, for: .device)
        await #expect(throws: SQLitePrivacyRecords.EmptyAppID.self) {
            try await records.set(Self.news, for: .app(""))
        }
        await #expect(throws: SQLitePrivacyRecords.EmptyAppID.self) { try await records.set(nil, for: .app("")) }
        #expect(try await records.all() == StoredPrivacy(device: Self.device))
    }

    /// A newer daemon's row (a key this one does not know) and damaged ones are reported with
    /// why, left in place, and do not keep the others from loading; a set replaces one.
    @Test func unreadableRowsAreReportedAndTheOthersStillLoad() async throws {
        let database = StateDatabase()
        let records = Self.records(database)
        try await records.set(Self.device, for: .device)
        try await records.set(Self.news, for: .app("tv.example.news"))
        try await database.write { session in
            for (scope, state) in [
                ("tv.example.future", SQLiteData.text(#"{"limit_ad_tracking":true,"sale_opt_out":true}"#)),
                ("tv.example.cut", .text(#"{"limit_ad_tracking":tr"#)),
                ("tv.example.typed", .text(#"{"limit_ad_tracking":"yes"}"#)),
                ("tv.example.array", .text("[]")), ("tv.example.blob", .blob(ByteBuffer(bytes: [0x00, 0xFF]))),
            ] {
                try await session.execute(
                    "INSERT INTO privacy (scope, state, set_at_ms) VALUES (?, ?, 0)", [.text(scope), state])
            }
        }
        let stored = try await records.all()
        #expect(stored.device == Self.device)
        #expect(stored.apps == ["tv.example.news": Self.news])
        #expect(stored.unreadable[.app("tv.example.future")] == "sale_opt_out: unknown key")
        #expect(stored.unreadable[.app("tv.example.typed")] == "limit_ad_tracking: must be true or false")
        #expect(stored.unreadable[.app("tv.example.array")] == "must be an object")
        #expect(stored.unreadable[.app("tv.example.blob")] == "is not JSON text")
        #expect(stored.unreadable[.app("tv.example.cut")]?.isEmpty == false)
        #expect(stored.unreadable.count == 5)
        // Left as they were; a set replaces one.
        #expect(try await database.read { try await $0.value("SELECT count(*) FROM privacy")?.integer } == 7)
        try await records.set(Self.user, for: .app("tv.example.future"))
        let after = try await records.all()
        #expect(after.apps == ["tv.example.news": Self.news, "tv.example.future": Self.user])
        #expect(after.unreadable.count == 4 && after.unreadable[.app("tv.example.future")] == nil)
    }

    /// Many sets from parallel tasks, each task its own scope in order (deleting it once on the
    /// way): after a reopen each scope holds its task's last write.
    @Test func parallelWritersLeaveEachScopesLastWrite() async throws {
        let directory = try TemporaryDirectory()
        let scopes: [PrivacyScope] = [.device] + (1...7).map { .app("tv.example.app\($0)") }
        let writes = 20
        do {
            let records = Self.records(try await StateDatabase.open(directory: directory.url))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, scope) in scopes.enumerated() {
                    group.addTask {
                        for write in 0..<writes {
                            let state = PrivacyState(limitAdTracking: write % 2 == 0, gppSid: [index, write])
                            try await records.set(write == writes / 2 ? nil : state, for: scope)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let stored = try await Self.records(try await StateDatabase.open(directory: directory.url)).all()
        let last = { (index: Int) in PrivacyState(limitAdTracking: false, gppSid: [index, writes - 1]) }
        #expect(stored.device == last(0))
        #expect(stored.apps.count == scopes.count - 1)
        for index in 1..<scopes.count {
            #expect(stored.apps["tv.example.app\(index)"] == last(index))
        }
        #expect(stored.unreadable.isEmpty)
    }

    /// A file the previous schema (migrations 1 to 6) made, with rows in its tables
    /// (`Tests/Fixtures/state/state-6.sql`, dumped by sqlite3 from one): opened now, it keeps
    /// them and gains `privacy`.
    @Test func aFileOfThePreviousSchemaKeepsItsRowsAndGainsPrivacy() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path(StateDatabase.fileName)
        let dump = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Tests/Fixtures/state/state-6.sql"), encoding: .utf8)
        // The dump's statements, one at a time (each ends a line with a semicolon).
        let statements = dump.components(separatedBy: ";\n").filter {
            !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        try await StateDatabaseTests.make(path, statements)
        try await StateDatabase.check(path: path)
        let database = try await StateDatabase.open(path: path)
        let (version, tables) = try await database.read { session in
            (
                try await session.value("PRAGMA user_version")?.integer,
                try await session.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                    .map { try $0.text("name") }
            )
        }
        // GRDB's record of migrations 1 to 6 taken up once, then 7 and 8 applied.
        #expect(version == 8)
        #expect(
            tables == [
                "capped_impressions", "events", "meta", "privacy", "rewards", "sqlite_sequence", "tracker_outbox",
            ])
        // What the old file held is still there.
        #expect(try await SQLiteTrackerOutbox(database).untried(after: 0, limit: 10).map(\.url) == ["http://t/owed"])
        let rewards = try await SQLiteRewardLedger(database, retention: .seconds(86_400 * 365 * 100))
            .rewards(app: nil, state: .all, now: Self.start)
        #expect(rewards.map(\.transactionID) == ["tx-1"])
        // A uid's reward and capped impression are its anonymous app's.
        #expect(rewards.map(\.app) == ["uid:1000"])
        #expect(try await SQLiteImpressionLog(database).impressions(since: 0).map(\.app) == ["uid:1000"])
        #expect(try await SQLiteEventJournal(database).reserved() == 42)
        #expect(try await SQLiteEventJournal(database).recent().map(\.event.sequence) == [41])
        #expect(try await SQLiteImpressionLog(database).impressions(since: 0).map(\.adUnit) == ["banner"])
        // And the privacy states are kept in it from now on.
        let records = Self.records(database)
        #expect(try await records.all() == StoredPrivacy())
        try await records.set(Self.device, for: .device)
        #expect(try await records.all() == StoredPrivacy(device: Self.device))
    }
}
