/// The state database's schema: one migration per change, counted in `PRAGMA user_version`
/// (the number of migrations applied). A migration that shipped is never edited; a change is a
/// new one at the end.
///
/// A file written while the daemon was on GRDB keeps the count in GRDB's `grdb_migrations` table, one row per migration
/// by its name (the names below): such a file is adopted once, in the transaction of its first
/// migration here (or alone), and the table dropped; an older daemon then refuses the file
/// rather than misreading it.
enum StateSchema {
    struct Migration: Sendable {
        /// Its name, as GRDB's migrator recorded it.
        var name: String
        var statements: [String]
    }

    static let migrations: [Migration] = [
        Migration(
            name: "1 tracker outbox",
            statements: [
                """
                CREATE TABLE "tracker_outbox" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "url" TEXT NOT NULL, \
                "kind" TEXT NOT NULL, "created_at_ms" INTEGER NOT NULL, "attempts" INTEGER NOT NULL DEFAULT 0, \
                "due_at_ms" INTEGER NOT NULL)
                """
            ]),
        Migration(
            name: "2 rewards",
            statements: [
                """
                CREATE TABLE "rewards" ("transaction_id" TEXT PRIMARY KEY NOT NULL, "ad_id" TEXT NOT NULL, \
                "ad_unit" TEXT NOT NULL, "reward_type" TEXT NOT NULL, "reward_amount" DOUBLE NOT NULL, \
                "custom_data" TEXT, "user_id" TEXT, "uid" INTEGER, "earned_at_ms" INTEGER NOT NULL, \
                "claimed_at_ms" INTEGER)
                """,
                #"CREATE INDEX "rewards_on_earned_at_ms" ON "rewards"("earned_at_ms")"#,
            ]),
        Migration(
            name: "3 events",
            statements: [
                """
                CREATE TABLE "events" ("sequence" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "ad_id" TEXT, \
                "ad_unit" TEXT NOT NULL, "fields" TEXT NOT NULL, "at_ms" INTEGER NOT NULL)
                """
            ]),
        Migration(
            name: "4 meta",
            statements: [#"CREATE TABLE "meta" ("key" TEXT PRIMARY KEY NOT NULL, "value" INTEGER NOT NULL)"#]),
        // Pings wait out their backoff in the outbox; the queue asks for those due.
        Migration(
            name: "5 tracker retries by due time",
            statements: ["CREATE INDEX tracker_outbox_retries ON tracker_outbox(due_at_ms) WHERE attempts > 0"]),
        // The impressions of units with frequency caps or pacing, per app (peer uid).
        Migration(
            name: "6 capped impressions",
            statements: [
                #"CREATE TABLE "capped_impressions" ("ad_unit" TEXT NOT NULL, "uid" INTEGER, "at_ms" INTEGER NOT NULL)"#,
                #"CREATE INDEX "capped_impressions_by_app" ON "capped_impressions"("ad_unit", "uid", "at_ms")"#,
            ]),
        // One privacy state per scope: the device's (the empty scope, which no app id is) and
        // each app's own, as the wire format's JSON (`SQLitePrivacyRecords`).
        Migration(
            name: "7 privacy states",
            statements: [
                #"CREATE TABLE "privacy" ("scope" TEXT PRIMARY KEY NOT NULL, "state" TEXT NOT NULL, "set_at_ms" INTEGER NOT NULL)"#
            ]),
        // Rewards, capped impressions and events are an app's, by its id; what a peer uid
        // earned or saw before is its anonymous app's (`uid:N`), as the registry names it.
        Migration(
            name: "8 rewards, impressions and events by app",
            statements: [
                #"ALTER TABLE "rewards" ADD COLUMN "app" TEXT"#,
                "UPDATE rewards SET app = 'uid:' || uid WHERE uid IS NOT NULL",
                #"ALTER TABLE "capped_impressions" ADD COLUMN "app" TEXT"#,
                "UPDATE capped_impressions SET app = 'uid:' || uid WHERE uid IS NOT NULL",
                #"ALTER TABLE "events" ADD COLUMN "app" TEXT"#,
                #"CREATE INDEX "capped_impressions_by_app_id" ON "capped_impressions"("ad_unit", "app", "at_ms")"#,
                "DROP INDEX capped_impressions_by_app",
            ]),
    ]

    /// The table where GRDB's migrator kept the names of the migrations it applied.
    static let grdbTable = "grdb_migrations"

    /// How far a file's schema is: the migrations applied, and whether that count is still in
    /// GRDB's table (to be adopted).
    struct Version: Equatable {
        var applied: Int
        var fromGRDB: Bool
    }

    /// Reads `session`'s schema version. Throws `Unreadable` for a file this daemon cannot
    /// take: another program's database, or one a newer daemon upgraded.
    static func version(in session: StateSession) async throws -> Version {
        let tables = try await session.rows("SELECT name FROM sqlite_master WHERE type = 'table'")
            .compactMap { try? $0.text("name") }
        let userVersion = Int(try await session.value("PRAGMA user_version")?.integer ?? 0)
        if userVersion > 0 {
            // Ours only if it holds what every version of ours does: another program's file
            // with a user_version of its own is not taken (nor upgraded) for one.
            guard tables.contains("tracker_outbox") else { throw Unreadable.foreign }
            guard userVersion <= migrations.count else { throw Unreadable.newer }
            return Version(applied: userVersion, fromGRDB: false)
        }
        guard tables.contains(grdbTable) else {
            guard tables.isEmpty else { throw Unreadable.foreign }
            return Version(applied: 0, fromGRDB: false)
        }
        let names = try await session.rows("SELECT identifier FROM \(grdbTable)").map { try $0.text("identifier") }
        let known = migrations.map(\.name)
        // GRDB applied its migrations in order: what it recorded is the first few of these.
        guard Set(names).isSubset(of: known) else { throw Unreadable.newer }
        guard Set(names) == Set(known.prefix(names.count)) else { throw Unreadable.foreign }
        return Version(applied: names.count, fromGRDB: true)
    }

    /// Why a file's schema is not one this daemon can take.
    enum Unreadable: Error {
        case foreign, newer
    }

    /// Brings `session`'s schema up to date from `version`: each migration in its own
    /// transaction with the version it reaches.
    static func migrate(_ session: StateSession, from version: Version) async throws {
        if version.fromGRDB {
            try await transaction(session) {
                try await session.execute("DROP TABLE \(grdbTable)")
                try await session.execute("PRAGMA user_version = \(version.applied)")
            }
        }
        for (index, migration) in migrations.enumerated().dropFirst(version.applied) {
            try await transaction(session) {
                for statement in migration.statements { try await session.execute(statement) }
                try await session.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }

    /// `body` in one immediate transaction, rolled back when it throws.
    static func transaction<T: Sendable>(_ session: StateSession, _ body: () async throws -> T) async throws -> T {
        try await session.execute("BEGIN IMMEDIATE")
        do {
            let value = try await body()
            try await session.execute("COMMIT")
            return value
        } catch {
            try? await session.execute("ROLLBACK")
            throw error
        }
    }
}
