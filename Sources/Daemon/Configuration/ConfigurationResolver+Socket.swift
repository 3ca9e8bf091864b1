import Foundation

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
        if !SocketActivation.isOffered,
            let reason = RuntimeDirectory.whyNotCreatable(ResolvedConfiguration.socketDirectory(of: path))
        {
            throw fault(reason)
        }
        return (path, mode_t(settings.socket.mode, radix: 8) ?? 0o660, group)
    }
}
