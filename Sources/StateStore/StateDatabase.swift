import FoundationEssentials
import Logging
import SQLiteNIO
import Synchronization
import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's durable state: one SQLite file, `state.sqlite` in the state directory, in WAL
/// mode with `synchronous = FULL`. A commit returns once SQLite has synced the write-ahead log
/// (fsync), so what it holds survives a crash of the daemon and a power cut alike, as far as the
/// disk keeps what it was told to sync. SQLite runs on SQLiteNIO's thread pool: no statement
/// runs on a caller's thread, nor while a caller holds a lock. The schema is made and upgraded
/// by `StateSchema`. A file that is not a database, is damaged, or was upgraded by a newer
/// daemon is refused, never replaced: the operator decides what becomes of it.
public final class StateDatabase: Sendable {
    /// The file's name in the state directory.
    public static let fileName = "state.sqlite"

    public let path: String
    /// Whether writes work now: each write below reports to it.
    public let health = StateHealth()
    private let gate = ConnectionGate()
    /// The connection, once open (an in-memory database opens at its first use).
    private let connection: Mutex<SQLiteConnection?>

    private init(path: String, connection: SQLiteConnection?) {
        self.path = path
        self.connection = Mutex(connection)
    }

    /// An empty database in memory, its own, opened at its first use: the same schema and
    /// code, for tests that do not restart.
    public convenience init() {
        self.init(path: ":memory:", connection: nil)
    }

    deinit {
        // Closed on SQLite's thread pool, after whatever is still queued there.
        _ = connection.withLock { $0 }?.close()
    }

    /// Opens (or makes) `state.sqlite` in `directory` and brings its schema up to date.
    public static func open(directory: URL) async throws(StateDatabaseError) -> StateDatabase {
        try await open(path: directory.appendingPathComponent(fileName).path)
    }

    /// Opens (or makes) the database at `path` and brings its schema up to date.
    public static func open(path: String) async throws(StateDatabaseError) -> StateDatabase {
        // Checked read-only first: opening it for writing converts the file to WAL.
        try await check(path: path)
        do {
            return StateDatabase(path: path, connection: try await connect(.file(path: path)))
        } catch {
            throw StateDatabaseError(path: path, underlying: error)
        }
    }

    /// A connection set up for the daemon's writes, its schema brought up to date.
    private static func connect(_ storage: SQLiteConnection.Storage) async throws -> SQLiteConnection {
        let connection = try await SQLiteConnection.open(storage: storage, logger: Logger(label: "state-database"))
        do {
            let session = StateSession(connection: connection)
            // Another process reading it (an operator's sqlite3, a backup) may hold a lock briefly.
            try await session.execute("PRAGMA busy_timeout = 5000")
            if storage != .memory { try await session.execute("PRAGMA journal_mode = WAL") }
            // Every commit syncs the log: an answer given after one is not lost to a power cut.
            try await session.execute("PRAGMA synchronous = FULL")
            try await StateSchema.migrate(session, from: try await StateSchema.version(in: session))
            return connection
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// `body`'s statements on the connection, no one else's between them (each its own
    /// transaction unless `body` begins one: a read of one statement needs none). A turn runs to
    /// its end even when its caller is cancelled: SQLiteNIO's thread pool skips the statements
    /// of a cancelled task, and a COMMIT or ROLLBACK skipped would leave the one connection
    /// inside a transaction, refusing every later write.
    func session<T: Sendable>(_ body: @escaping @Sendable (StateSession) async throws -> T) async throws -> T {
        try await uncancelled {
            try await self.gate.exclusively {
                let open: SQLiteConnection
                if let current = self.connection.withLock({ $0 }) {
                    open = current
                } else {
                    open = try await Self.connect(.memory)
                    self.connection.withLock { $0 = open }
                }
                return try await body(StateSession(connection: open))
            }
        }
    }

    /// One transaction, synced before it returns; its outcome is told to `health`.
    func write<T: Sendable>(_ body: @escaping @Sendable (StateSession) async throws -> T) async throws -> T {
        do {
            let value = try await session { session in
                try await StateSchema.transaction(session) { try await body(session) }
            }
            health.succeeded()
            return value
        } catch {
            health.failed(error)
            throw error
        }
    }

    /// Reads in one transaction: what `body` sees is one moment's.
    func read<T: Sendable>(_ body: @escaping @Sendable (StateSession) async throws -> T) async throws -> T {
        try await session { session in
            try await session.execute("BEGIN")
            do {
                let value = try await body(session)
                try await session.execute("COMMIT")
                return value
            } catch {
                try? await session.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Tries one small synced write, so that `health` learns whether commits work again when
    /// nothing else writes (everything that would is refused during an outage).
    public func probe() async {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try? await write { session in
            try await session.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('write_probe', ?)", [.int64(now)])
        }
    }
}
