import SQLiteNIO

/// The statements of one turn at the state database's connection (`StateDatabase.write` or
/// `read`): each runs on SQLite's thread pool, none on the caller's thread.
struct StateSession: Sendable {
    let connection: SQLiteConnection

    /// Runs one statement, ignoring any rows it answers.
    func execute(_ sql: String, _ binds: [SQLiteData] = []) async throws {
        try await connection.query(sql, binds) { _ in }
    }

    /// Runs one statement; answers its rows.
    func rows(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await connection.query(sql, binds)
    }

    /// The first row one statement answers, if any.
    func row(_ sql: String, _ binds: [SQLiteData] = []) async throws -> SQLiteRow? {
        try await rows(sql, binds).first
    }

    /// The first column of the first row one statement answers, if any.
    func value(_ sql: String, _ binds: [SQLiteData] = []) async throws -> SQLiteData? {
        try await row(sql, binds)?.columns.first?.data
    }
}

/// A stored value of the wrong type or a column missing: the row was not written by this
/// daemon's schema.
struct StoredValueError: Error, CustomStringConvertible {
    var column: String
    var description: String { "the stored column \(column) is missing or of the wrong type" }
}

extension SQLiteRow {
    func int64(_ name: String) throws -> Int64 {
        guard case .integer(let value) = column(name) else { throw StoredValueError(column: name) }
        return Int64(value)
    }

    func optionalInt64(_ name: String) throws -> Int64? {
        if column(name)?.isNull == true { return nil }
        return try int64(name)
    }

    func text(_ name: String) throws -> String {
        guard case .text(let value) = column(name) else { throw StoredValueError(column: name) }
        return value
    }

    func optionalText(_ name: String) throws -> String? {
        if column(name)?.isNull == true { return nil }
        return try text(name)
    }

    func double(_ name: String) throws -> Double {
        guard let data = column(name), let value = Double(sqliteData: data) else {
            throw StoredValueError(column: name)
        }
        return value
    }
}

extension SQLiteData {
    /// Text, or NULL for nil.
    static func nullableText(_ value: String?) -> SQLiteData { value.map(SQLiteData.text) ?? .null }

    /// An integer, or NULL for nil.
    static func int64(_ value: Int64?) -> SQLiteData { value.map { .integer(SQLiteInt64($0)) } ?? .null }
}
