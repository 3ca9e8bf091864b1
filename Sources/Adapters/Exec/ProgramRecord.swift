import FoundationEssentials
import Logging
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

/// Where a running adapter program is written down (`programs/NAME.pid` in the state
/// directory: its pid and start time in clock ticks since boot, and its daemon's), so that a
/// daemon that was killed (SIGKILL outside systemd, whose cgroup would have stopped it) leaves
/// no program behind: the next start of the adapter finds the record, and if that very process
/// (same pid, same start time: not a reused pid) still runs and the daemon that started it is
/// gone, kills its process group before starting a second copy. A program this daemon runs (a
/// reload's old host, still stopping it) is left to its supervisor.
struct ProgramRecord: Sendable {
    let file: URL

    init(stateDirectory: URL, adapter: String) {
        file = stateDirectory.appendingPathComponent("programs").appendingPathComponent("\(adapter).pid")
    }

    /// Kills the program a previous daemon left, if it still runs; says so. Removes the record
    /// unless its program is this daemon's.
    func stopLeftover(logger: Logger) {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return }
        let fields = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard fields.count == 4, let pid = pid_t(fields[0]), pid > 1, let started = UInt64(fields[1]),
            Self.startTime(of: pid) == started
        else { return }
        // Its daemon still runs (this one, or another on the same state directory): not left over.
        if let owner = pid_t(fields[2]), let ownerStarted = UInt64(fields[3]), Self.startTime(of: owner) == ownerStarted
        {
            return
        }
        logger.warning(
            "stopping the adapter program a previous daemon left running (it was not stopped with it)",
            metadata: ["pid": "\(pid)"])
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        try? FileManager.default.removeItem(at: file)
    }

    /// Writes `pid` down as the running program. A failure is logged: the program runs anyway.
    func write(pid: pid_t, logger: Logger) {
        let daemon = getpid()
        guard let started = Self.startTime(of: pid), let daemonStarted = Self.startTime(of: daemon) else { return }
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try Data("\(pid) \(started) \(daemon) \(daemonStarted)\n".utf8).write(to: file, options: .atomic)
        } catch {
            logger.warning(
                "cannot write down the adapter program's pid; a killed daemon could leave it running",
                metadata: ["error": "\(error)"])
        }
    }

    /// Program `pid` has stopped: its record goes (not one a newer run of the adapter wrote).
    func remove(pid: pid_t) {
        guard let text = try? String(contentsOf: file, encoding: .utf8),
            text.split(whereSeparator: \.isWhitespace).first == Substring("\(pid)")
        else { return }
        try? FileManager.default.removeItem(at: file)
    }

    /// When process `pid` started (`ProcFiles.Stat.startTicks`); nil when there is none.
    static func startTime(of pid: pid_t) -> UInt64? {
        ProcFiles.stat(of: pid)?.startTicks
    }
}
