import SharedTypes

/// How the registry recognizes an app: by what the kernel says about the peer, never by what
/// the client says. Every key given must hold (`uid` and `gid` together, say).
@Settings
struct AppMatch: Codable, Sendable, Equatable {
    /// The peer's uid (SO_PEERCRED).
    var uid: UInt32?
    /// The peer's primary gid (SO_PEERCRED).
    var gid: UInt32?
    /// The peer's cgroup (`/proc/PID/cgroup`): a unit or scope name (`news.service`), which
    /// matches the path's last component (a user's own units can take any name: give a uid
    /// too, or a path), or an absolute path (`/system.slice/news.service`), which matches it
    /// and below.
    var cgroup: String?
    /// The peer's executable (`/proc/PID/exe`), an absolute path.
    var exe: String?

    func validate(at codingPath: [any CodingKey]) throws {
        guard uid != nil || gid != nil || cgroup != nil || exe != nil else {
            throw StrictJSON.Failure(at: codingPath, "names none of uid, gid, cgroup, exe")
        }
        if let exe, !exe.hasPrefix("/") {
            throw StrictJSON.Failure(at: codingPath, CodingKeys.exe, "must be an absolute path, not \"\(exe)\"")
        }
        if let cgroup, cgroup.isEmpty || cgroup.contains(where: \.isWhitespace) || cgroup.hasSuffix("/") {
            throw StrictJSON.Failure(
                at: codingPath, CodingKeys.cgroup, "must be a unit name or an absolute cgroup path, not \"\(cgroup)\"")
        }
    }

    /// Whether `peer`, running as `process`, is this app.
    func matches(_ peer: PeerCredentials, _ process: PeerProcess) -> Bool {
        if let uid, uid != peer.uid { return false }
        if let gid, gid != peer.gid { return false }
        if let exe, exe != process.executable { return false }
        if let cgroup {
            guard let path = process.cgroup else { return false }
            if cgroup.hasPrefix("/") {
                guard path == cgroup || path.hasPrefix(cgroup + "/") else { return false }
            } else {
                guard path.split(separator: "/").last.map({ $0 == cgroup }) ?? false else { return false }
            }
        }
        return true
    }

    /// Whether it names the peer's uid or gid: what the kernel vouches for at the connection.
    var namesCredentials: Bool { uid != nil || gid != nil }

    /// Whether one peer could be both this app and `other`: unless a key both name tells them
    /// apart, it could.
    func overlaps(_ other: AppMatch) -> Bool {
        func apart<T: Equatable>(_ mine: T?, _ theirs: T?) -> Bool {
            guard let mine, let theirs else { return false }
            return mine != theirs
        }
        return
            !(apart(uid, other.uid) || apart(gid, other.gid) || apart(exe, other.exe)
            || cgroupsApart(cgroup, other.cgroup))
    }

    /// Two names that differ (each is a path's last component), or two paths neither of which
    /// holds the other; a name and a path could both be one peer's.
    private func cgroupsApart(_ mine: String?, _ theirs: String?) -> Bool {
        guard let mine, let theirs, mine.hasPrefix("/") == theirs.hasPrefix("/") else { return false }
        guard mine.hasPrefix("/") else { return mine != theirs }
        return !(mine == theirs || mine.hasPrefix(theirs + "/") || theirs.hasPrefix(mine + "/"))
    }
}
