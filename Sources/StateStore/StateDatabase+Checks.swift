import FoundationEssentials
import SQLiteNIO
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

extension StateDatabase {
    /// What `--check-config` asks: whether the file at `path`, when there is one, is a state
    /// database this daemon can open. It is opened read-only, so nothing is made or changed.
    public static func check(path: String) async throws(StateDatabaseError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        // SQLite takes an empty file as a new database: this one was meant to hold the state.
        if FileManager.default.sizeOfItem(atPath: path) == 0 {
            throw StateDatabaseError(path: path, reason: "is empty (0 bytes), not a state database this daemon wrote")
        }
        do {
            let connection = try await SQLiteConnection.open(storage: .file(path: readOnlyURI(path)))
            do {
                // As the daemon's own connection: a lock another process holds is waited out for
                // 5 s, not retried at once forever (SQLiteNIO's handler spins a thread).
                try await StateSession(connection: connection).execute("PRAGMA busy_timeout = 5000")
                try await check(StateSession(connection: connection), path: path)
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        } catch let error as StateDatabaseError {
            throw error
        } catch {
            throw StateDatabaseError(path: path, underlying: error)
        }
    }

    /// What `--check-config` asks as well: whether this process may write the file (when there
    /// is one) and make its journal files beside it, as the daemon must.
    public static func checkWritable(path: String) throws(StateDatabaseError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        for (target, what) in [(path, "the file"), (directory.isEmpty ? "/" : directory, "its directory")] {
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
    private static func check(_ session: StateSession, path: String) async throws {
        let verdict = try await session.value("PRAGMA quick_check")?.string ?? "no answer"
        guard verdict == "ok" else {
            throw StateDatabaseError(path: path, reason: "is damaged (SQLite's quick_check: \(verdict))")
        }
        do {
            _ = try await StateSchema.version(in: session)
        } catch StateSchema.Unreadable.foreign {
            throw StateDatabaseError(
                path: path, reason: "is an SQLite database another program made (no secure-signals schema)")
        } catch StateSchema.Unreadable.newer {
            throw StateDatabaseError(
                path: path, reason: "was upgraded by a newer secure-signalsd; run that version, or restore a backup")
        }
    }

    /// `path` as an SQLite URI that opens it read-only and never makes it.
    private static func readOnlyURI(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return "file:\(escaped)?mode=ro"
    }
}
