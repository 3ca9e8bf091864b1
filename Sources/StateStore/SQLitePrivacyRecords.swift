import FoundationEssentials
import SQLiteNIO
import SharedTypes
import Timing

/// The privacy states in the state database (`privacy`): one row per scope, the state as the
/// wire format's JSON, and when it was set (wall-clock ms). The device's row has the empty
/// scope, which no app id is. Each set syncs before it returns.
///
/// A row is read strictly: one this daemon cannot read (a newer daemon's, with keys it does not
/// know, or a damaged one) is reported in `StoredPrivacy.unreadable` and left in place, and the
/// others load; a set for its scope replaces it.
public struct SQLitePrivacyRecords: PrivacyRecords {
    let database: StateDatabase
    let clock: any EpochClock

    /// `clock`: what `set_at_ms` reads (the daemon's wall clock).
    public init(_ database: StateDatabase, clock: any EpochClock = WallClock(clock: ContinuousClock())) {
        self.database = database
        self.clock = clock
    }

    /// An app's scope with an empty id: it would be the device's row.
    public struct EmptyAppID: Error, CustomStringConvertible {
        public var description: String { "an app id is not empty: the empty scope is the device's" }
    }

    public func all() async throws -> StoredPrivacy {
        let rows = try await database.session { session in
            try await session.rows("SELECT scope, state FROM privacy ORDER BY scope")
        }
        var stored = StoredPrivacy()
        for row in rows {
            let key = row.column("scope") ?? .null
            let scope = Self.scope(key.string ?? key.description)
            do {
                let state = try Self.decode(row.column("state") ?? .null)
                switch scope {
                case .device: stored.device = state
                case .app(let id): stored.apps[id] = state
                }
            } catch {
                stored.unreadable[scope] = Self.describe(error)
            }
        }
        return stored
    }

    public func set(_ state: PrivacyState?, for scope: PrivacyScope) async throws {
        let key = try Self.key(scope)
        guard let state else {
            try await database.write { session in
                try await session.execute("DELETE FROM privacy WHERE scope = ?", [.text(key)])
            }
            return
        }
        let json = String(decoding: try WireFormat.encoder().encode(state), as: UTF8.self)
        let now = clock.nowMilliseconds
        try await database.write { session in
            try await session.execute(
                "INSERT OR REPLACE INTO privacy (scope, state, set_at_ms) VALUES (?, ?, ?)",
                [.text(key), .text(json), .int64(now)])
        }
    }

    /// The row's scope: the device's is empty.
    static func key(_ scope: PrivacyScope) throws -> String {
        switch scope {
        case .device: return ""
        case .app(let id):
            guard !id.isEmpty else { throw EmptyAppID() }
            return id
        }
    }

    static func scope(_ key: String) -> PrivacyScope {
        key.isEmpty ? .device : .app(key)
    }

    /// A kept state, read as strictly as a request body: an unknown key is an error.
    private static func decode(_ value: SQLiteData) throws -> PrivacyState {
        guard case .text(let text) = value else {
            throw StrictJSON.Failure(path: "", reason: "is not JSON text")
        }
        return try WireFormat.decoder().decode(Strict.self, from: Data(text.utf8)).state
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case let failure as StrictJSON.Failure: return failure.description
        case let error as DecodingError: return StrictJSON.describe(error).description
        default: return "\(error)"
        }
    }

    /// `PrivacyState` with its unknown keys refused.
    private struct Strict: Decodable {
        var state: PrivacyState

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(PrivacyState.CodingKeys.self)
            state = try PrivacyState(from: decoder)
        }
    }
}
