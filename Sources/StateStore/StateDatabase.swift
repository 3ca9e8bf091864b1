import Foundation
import GRDB

/// The daemon's durable state: one SQLite file, `state.sqlite` in the state directory, in WAL
/// mode with `synchronous = FULL`. A commit returns once SQLite has synced the write-ahead log
/// (fsync), so what it holds survives a crash of the daemon and a power cut alike, as far as the
/// disk keeps what it was told to sync. The schema is made and upgraded by GRDB's migrator. A
/// file that is not a database, is damaged, or was upgraded by a newer daemon is refused, never
/// replaced: the operator decides what becomes of it.
public final class StateDatabase: Sendable {
    /// The file's name in the state directory.
    public static let fileName = "state.sqlite"

    public let path: String
    let writer: any DatabaseWriter
    /// Whether writes work now: each write below reports to it.
    public let health = StateHealth()

    /// Opens (or makes) `state.sqlite` in `directory` and brings its schema up to date.
    public convenience init(directory: URL) throws(StateDatabaseError) {
        try self.init(path: directory.appendingPathComponent(Self.fileName).path)
    }

    /// Opens (or makes) the database at `path` and brings its schema up to date.
    public init(path: String) throws(StateDatabaseError) {
        self.path = path
        // Checked read-only first: opening the pool converts the file to WAL and writes to it.
        try Self.check(path: path)
        do {
            let pool = try DatabasePool(path: path, configuration: Self.configuration(readonly: false))
            // GRDB sets a WAL writer to synchronous = NORMAL, which a power cut can undo the last
            // commits of: every commit here backs an answer, so it syncs.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.migrator.migrate(pool)
            writer = pool
        } catch let error as StateDatabaseError {
            throw error
        } catch {
            throw StateDatabaseError(path: path, underlying: error)
        }
    }

    /// An empty database in memory, its own: the same schema and code, for tests that do not
    /// restart.
    public init() {
        path = ":memory:"
        do {
            let queue = try DatabaseQueue(configuration: Self.configuration(readonly: false))
            try Self.migrator.migrate(queue)
            writer = queue
        } catch {
            preconditionFailure("an in-memory SQLite database could not be made: \(error)")
        }
    }

    /// One transaction, synced before it returns; its outcome is told to `health`.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        do {
            let value = try writer.write(updates)
            health.succeeded()
            return value
        } catch {
            health.failed(error)
            throw error
        }
    }

    /// One transaction off the caller's thread, synced before it returns; told to `health`.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            let value = try await writer.write(updates)
            health.succeeded()
            return value
        } catch {
            health.failed(error)
            throw error
        }
    }

    /// Tries one small synced write, so that `health` learns whether commits work again when
    /// nothing else writes (everything that would is refused during an outage).
    public func probe() async {
        _ = try? await write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('write_probe', ?)",
                arguments: [Int64(Date().timeIntervalSince1970 * 1000)])
        }
    }

    /// What `--check-config` asks: whether the file at `path`, when there is one, is a state
    /// database this daemon can open. It is opened read-only, so nothing is made or changed.
    public static func check(path: String) throws(StateDatabaseError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        // SQLite takes an empty file as a new database: this one was meant to hold the state.
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if size == 0 {
            throw StateDatabaseError(path: path, reason: "is empty (0 bytes), not a state database this daemon wrote")
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readonly: true))
            try queue.read { db in try check(db, path: path) }
        } catch let error as StateDatabaseError {
            throw error
        } catch {
            throw StateDatabaseError(path: path, underlying: error)
        }
    }

    /// What `--check-config` asks as well: whether this process may write the file (when there
    /// is one) and make its journal files beside it, as the daemon must.
    public static func checkWritable(path: String) throws(StateDatabaseError) {
        let directory = (path as NSString).deletingLastPathComponent
        for (target, what) in [(path, "the file"), (directory.isEmpty ? "." : directory, "its directory")] {
            guard FileManager.default.fileExists(atPath: target) else { continue }
            if access(target, W_OK) != 0 {
                let reason = String(cString: strerror(errno))
                throw StateDatabaseError(
                    path: path,
                    reason: "cannot be opened for writing: \(what) is not writable by this user (\(reason)); "
                        + "check its owner, mode, attributes (chattr) and mount")
            }
        }
    }

    /// Refuses a damaged file, a database another program made, and one a newer daemon upgraded.
    private static func check(_ db: Database, path: String) throws {
        let verdict = try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "no answer"
        guard verdict == "ok" else {
            throw StateDatabaseError(path: path, reason: "is damaged (SQLite's quick_check: \(verdict))")
        }
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        if !tables.isEmpty, !tables.contains("grdb_migrations") {
            throw StateDatabaseError(
                path: path, reason: "is an SQLite database another program made (no secure-signals schema)")
        }
        if try migrator.hasBeenSuperseded(db) {
            throw StateDatabaseError(
                path: path, reason: "was upgraded by a newer secure-signalsd; run that version, or restore a backup")
        }
    }

    private static func configuration(readonly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.label = "secure-signals state"
        // Another process reading it (an operator's sqlite3, a backup) may hold a lock briefly.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // Every commit syncs the log: an answer given after one is not lost to a power cut.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        return configuration
    }

    /// The schema, one migration per change; a migration that shipped is never edited.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1 tracker outbox") { db in
            try db.create(table: OutboxRow.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("url", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("created_at_ms", .integer).notNull()
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("due_at_ms", .integer).notNull()
            }
        }
        migrator.registerMigration("2 rewards") { db in
            try db.create(table: RewardRow.databaseTableName) { table in
                table.primaryKey("transaction_id", .text)
                table.column("ad_id", .text).notNull()
                table.column("ad_unit", .text).notNull()
                table.column("reward_type", .text).notNull()
                table.column("reward_amount", .double).notNull()
                table.column("custom_data", .text)
                table.column("user_id", .text)
                table.column("uid", .integer)
                table.column("earned_at_ms", .integer).notNull().indexed()
                table.column("claimed_at_ms", .integer)
            }
        }
        migrator.registerMigration("3 events") { db in
            try db.create(table: "events") { table in
                table.primaryKey("sequence", .integer)
                table.column("name", .text).notNull()
                table.column("ad_id", .text)
                table.column("ad_unit", .text).notNull()
                table.column("fields", .text).notNull()
                table.column("at_ms", .integer).notNull()
            }
        }
        migrator.registerMigration("4 meta") { db in
            try db.create(table: "meta") { table in
                table.primaryKey("key", .text)
                table.column("value", .integer).notNull()
            }
        }
        migrator.registerMigration("5 tracker retries by due time") { db in
            // Pings wait out their backoff in the outbox; the queue asks for those due.
            try db.execute(
                sql: "CREATE INDEX tracker_outbox_retries ON tracker_outbox(due_at_ms) WHERE attempts > 0")
        }
        migrator.registerMigration("6 capped impressions") { db in
            // The impressions of units with frequency caps or pacing, per app (peer uid).
            try db.create(table: ImpressionRow.databaseTableName) { table in
                table.column("ad_unit", .text).notNull()
                table.column("uid", .integer)
                table.column("at_ms", .integer).notNull()
            }
            try db.create(
                index: "capped_impressions_by_app", on: ImpressionRow.databaseTableName,
                columns: ["ad_unit", "uid", "at_ms"])
        }
        migrator.registerMigration("7 privacy states") { db in
            // One privacy state per scope: the device's (the empty scope, which no app id is)
            // and each app's own, as the wire format's JSON (`SQLitePrivacyRecords`).
            try db.create(table: "privacy") { table in
                table.primaryKey("scope", .text)
                table.column("state", .text).notNull()
                table.column("set_at_ms", .integer).notNull()
            }
        }
        migrator.registerMigration("8 rewards, impressions and events by app") { db in
            // Rewards, capped impressions and events are an app's, by its id; what a peer uid
            // earned or saw before is its anonymous app's (`uid:N`), as the registry names it.
            for table in [RewardRow.databaseTableName, ImpressionRow.databaseTableName] {
                try db.alter(table: table) { $0.add(column: "app", .text) }
                try db.execute(sql: "UPDATE \(table) SET app = 'uid:' || uid WHERE uid IS NOT NULL")
            }
            try db.alter(table: "events") { $0.add(column: "app", .text) }
            try db.create(
                index: "capped_impressions_by_app_id", on: ImpressionRow.databaseTableName,
                columns: ["ad_unit", "app", "at_ms"])
            try db.execute(sql: "DROP INDEX capped_impressions_by_app")
        }
        return migrator
    }()
}

/// Why the state database cannot be used, in one line that names the file and what to do.
public struct StateDatabaseError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, underlying: any Error) {
        self.path = path
        if let error = underlying as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB: reason = "is not an SQLite database"
            case .SQLITE_CORRUPT: reason = "is damaged (\(error.message ?? "corrupt"))"
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
                reason =
                    "cannot be opened for writing (\(error.message ?? "\(error.resultCode)")): check the state directory's owner and mode"
            case .SQLITE_FULL: reason = "cannot be written: the disk is full"
            default: reason = "cannot be used: \(error.message ?? "\(error.resultCode)")"
            }
        } else {
            reason = "cannot be used: \(underlying)"
        }
    }

    public var description: String {
        "state database \(path) \(reason). It is never replaced: move it aside to start with an empty state (owed tracker pings and rewards in it are then lost), or restore it from a backup"
    }
}
