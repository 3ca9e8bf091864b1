import Foundation

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
    init(pid: Int32, uid: UInt32, proc: String = "/proc") {
        guard let status = try? String(contentsOfFile: "\(proc)/\(pid)/status", encoding: .utf8),
            Self.realUID(status) == uid
        else { return }
        let text = try? String(contentsOfFile: "\(proc)/\(pid)/cgroup", encoding: .utf8)
        cgroup = text.flatMap(Self.unifiedPath)
        executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(proc)/\(pid)/exe")).map {
            // A binary replaced on disk (an upgrade) while it runs is still that program.
            $0.hasSuffix(" (deleted)") ? String($0.dropLast(" (deleted)".count)) : $0
        }
    }

    /// The real uid of a `/proc/PID/status` text: its `Uid:` line's first number.
    static func realUID(_ status: String) -> UInt32? {
        for line in status.split(separator: "\n") where line.hasPrefix("Uid:") {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { UInt32($0) }
        }
        return nil
    }

    /// The cgroup v2 (unified) path of a `/proc/PID/cgroup` text: its `0::PATH` line.
    static func unifiedPath(_ text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            return String(line.dropFirst(3))
        }
        return nil
    }
}
