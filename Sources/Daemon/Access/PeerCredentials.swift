import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

/// The process at the other end of a Unix socket connection: pid, uid and primary gid from
/// SO_PEERCRED, and the groups its user belongs to (the group database: `usermod -aG` adds to it).
@MemberwiseInit
public struct PeerCredentials: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public var groups: [UInt32] = []
    /// Its process's cgroup and executable, which apps may be recognized by.
    public var process: PeerProcess = PeerProcess()

    /// The supplementary groups of user `uid` (whose primary group is `gid`), from the group
    /// database; empty when the uid has no user entry.
    static func groups(ofUser uid: uid_t, primary gid: gid_t) -> [UInt32] {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return [] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, gid, &groups, &count) >= 0 else { return [] }
        }
        return Array(groups.prefix(Int(count)))
    }
}
