import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension ConfigurationResolver {
    /// `socket`: its path (absolute, short enough for `sun_path`), its mode and its group.
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
        let path = settings.socket.path.map(absolute) ?? ResolvedConfiguration.defaultSocketPath()
        guard path.utf8.count < 108 else {
            throw fail("socket.path", "\(path.utf8.count) bytes long; a Unix socket path must be under 108")
        }
        return (path, mode_t(settings.socket.mode, radix: 8) ?? 0o660, group)
    }
}
