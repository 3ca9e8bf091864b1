import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

extension ConfigurationResolver {
    /// `socket`: its path (absolute, short enough for `sun_path`, in a directory the daemon can
    /// make unless systemd hands the socket over), its mode and its group.
    func socket() throws -> (path: String, mode: mode_t, group: gid_t?) {
        var group: gid_t?
        if let name = settings.socket.group {
            if let number = gid_t(name) {
                group = number
            } else if let entry = getgrnam(name) {
                group = entry.pointee.gr_gid
            } else {
                throw fail("socket.group", "no group named \"\(name)\"")
            }
        }
        let path = socketFlag ?? settings.socket.path.map(absolute) ?? ResolvedConfiguration.defaultSocketPath()
        let fault = { ResolvedConfiguration.socketError($0, file: file, fromFlag: socketFlag != nil) }
        guard path.utf8.count < 108 else {
            throw fault("\(path.utf8.count) bytes long; a Unix socket path must be under 108")
        }
        if !SocketActivation.isOffered {
            let directory = ResolvedConfiguration.socketDirectory(of: path)
            if let reason = RuntimeDirectory.whyNotCreatable(directory) { throw fault(reason) }
            if let reason = Self.whyNotBindable(path, in: directory) { throw fault(reason) }
        }
        return (path, mode_t(settings.socket.mode, radix: 8) ?? 0o660, group)
    }

    /// Why a socket cannot be bound at `path`, when something is there already: a file that is
    /// not a socket is never removed, and a stale socket can be replaced only where this user
    /// may remove it.
    static func whyNotBindable(_ path: String, in directory: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            let kind = status.st_mode & S_IFMT == S_IFDIR ? "a directory" : "a file that is not a socket"
            return "\(path) is \(kind); the daemon replaces only a socket: remove it or choose another path"
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            return "a socket is at \(path) and this user cannot replace it (\(String(cString: strerror(errno)))): "
                + "remove it, or check the directory's owner and mode"
        }
        return nil
    }
}
