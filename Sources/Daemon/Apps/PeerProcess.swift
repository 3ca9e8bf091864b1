import SharedTypes

/// What the kernel says about a peer's process beyond its credentials, read once per
/// connection: its cgroup and its executable. Either is nil when it cannot be read (the
/// process is gone, or, for `exe`, belongs to another user and the daemon is not root).
public struct PeerProcess: Sendable, Equatable {
    /// The cgroup v2 path (`/system.slice/news.service`), from `/proc/PID/cgroup`'s `0::` line.
    public var cgroup: String?
    /// `/proc/PID/exe`, resolved.
    public var executable: String?

    public init(cgroup: String? = nil, executable: String? = nil) {
        self.cgroup = cgroup
        self.executable = executable
    }

    /// The process `pid`, as `/proc` shows it now, if it still runs as `uid` (the uid the
    /// kernel gave at the connection): a pid the peer gave up, or another process, says nothing.
    init(pid: Int32, uid: UInt32) {
        guard let real = ProcFiles.numbers("status", of: pid)?["Uid"], real == Int(uid) else { return }
        cgroup = ProcFiles.cgroup(of: pid)
        executable = ProcFiles.executable(of: pid)
    }
}
