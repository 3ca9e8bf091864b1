import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A directory the daemon makes when it starts (the socket's, the state directory): checked
/// with the configuration, so that `--check-config` and a reload say what start would meet,
/// and made with the OS's own reason when it cannot be.
enum RuntimeDirectory {
    /// Why this process cannot have `path` as a directory it writes in, or nil when it can: an
    /// existing directory must be writable, a missing one's nearest existing ancestor too.
    static func whyNotCreatable(_ path: String) -> String? {
        var existing = path
        while !existing.isEmpty, !exists(existing) {
            existing = parent(of: existing)
        }
        if existing.isEmpty { existing = "/" }
        guard isDirectory(existing) else { return "\(existing) exists and is not a directory" }
        guard access(existing, W_OK | X_OK) == 0 else {
            let reason = String(cString: strerror(errno))
            return existing == path
                ? "\(path) is not writable by uid \(getuid()): \(reason)"
                : "cannot create \(path): \(existing) is not writable by uid \(getuid()): \(reason)"
        }
        return nil
    }

    /// Makes `path` and its missing parents with exactly `mode` (whatever the umask); the
    /// error is the OS's reason.
    static func create(_ path: String, mode: mode_t) throws(Failure) {
        guard !exists(path) else {
            if !isDirectory(path) { throw Failure(reason: "\(path) exists and is not a directory") }
            return
        }
        let parent = parent(of: path)
        if !parent.isEmpty, parent != path { try create(parent, mode: mode) }
        if mkdir(path, mode) == 0 {
            // mkdir(2) applies the umask (UMask=0077 in the unit would make 0750 into 0700).
            guard chmod(path, mode) == 0 else {
                throw Failure(reason: "cannot set the mode of \(path): \(String(cString: strerror(errno)))")
            }
        } else if errno != EEXIST || !isDirectory(path) {
            throw Failure(reason: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    struct Failure: Error {
        var reason: String
    }

    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.dropLast().lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

extension ResolvedConfiguration {
    /// The directory the socket at `path` is made in.
    static func socketDirectory(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    /// An error about the socket's path, named as it was given: `--socket`, or `socket.path`
    /// in `file`.
    static func socketError(_ reason: String, file: String, fromFlag: Bool) -> ConfigurationError {
        fromFlag
            ? ConfigurationError(file: "--socket", path: "", reason: reason)
            : ConfigurationError(file: file, path: "socket.path", reason: reason)
    }

    /// Makes the socket's directory (unless systemd hands the socket over) and the state
    /// directory; each error names its key and the OS's reason.
    public func makeDirectories() throws(ConfigurationErrors) {
        var errors: [ConfigurationError] = []
        if !SocketActivation.isOffered {
            do {
                try RuntimeDirectory.create(Self.socketDirectory(of: socketPath), mode: 0o750)
            } catch {
                errors.append(Self.socketError(error.reason, file: source, fromFlag: socketOverridden))
            }
        }
        do {
            try RuntimeDirectory.create(collector.stateDirectory.path, mode: 0o700)
        } catch {
            errors.append(ConfigurationError(file: source, path: "state_directory", reason: error.reason))
        }
        guard errors.isEmpty else { throw ConfigurationErrors(errors: errors) }
    }
}
