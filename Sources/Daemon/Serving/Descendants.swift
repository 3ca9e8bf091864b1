import CProcessControl
import FoundationEssentials
import Logging
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's descendants: the exec adapters' programs and whatever they start. The daemon is
/// their subreaper, so a grandchild that leaves its program's process group (`setsid()`) and is
/// orphaned comes back to the daemon instead of init; at the stop, once the programs are
/// stopped, every descendant left gets SIGTERM, then SIGKILL after the grace, and is reaped.
/// Under systemd the unit's cgroup catches them too; this is for when it does not.
enum Descendants {
    /// One process as `/proc/PID/stat` shows it.
    struct Process: Equatable {
        var pid: pid_t
        var parent: pid_t
        var isZombie: Bool
        var processGroup: pid_t
        var session: pid_t

        /// An adapter program the daemon started: the leader of its own process group, in the
        /// daemon's session. Its supervisor reaps it; anything else the daemon adopted.
        var isProgram: Bool { processGroup == pid && session != pid }
    }

    /// Asks the kernel to reparent orphaned descendants to this process.
    static func becomeSubreaper(logger: Logger) {
        if cprocesscontrol_become_child_subreaper() != 0 {
            logger.warning(
                "cannot become the subreaper of the adapters' processes; a program's detached children may outlive a stop",
                metadata: ["errno": "\(errno)"])
        }
    }

    /// The descendants of `root` now, from `/proc`.
    static func of(_ root: pid_t = getpid()) -> [Process] {
        let all = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            pid_t(name).flatMap { pid in ProcFiles.stat(of: pid).map { process(pid, $0) } }
        }
        let children = Dictionary(grouping: all, by: \.parent)
        var found: [Process] = []
        var parents = [root]
        while let parent = parents.popLast() {
            for child in children[parent] ?? [] {
                found.append(child)
                parents.append(child.pid)
            }
        }
        return found
    }

    /// A `/proc/PID/stat` line, as `ProcFiles` reads it.
    static func parse(stat: String, pid: pid_t) -> Process? {
        ProcFiles.stat(parsing: stat).map { process(pid, $0) }
    }

    private static func process(_ pid: pid_t, _ stat: ProcFiles.Stat) -> Process {
        Process(
            pid: pid, parent: stat.parent, isZombie: stat.state == "Z", processGroup: stat.processGroup,
            session: stat.session)
    }

    /// Stops every descendant left: SIGTERM, `grace` to go, SIGKILL; each is reaped. Returns
    /// how many there were.
    @discardableResult
    static func stopAll<C: Clock>(grace: Duration, clock: C = ContinuousClock(), logger: Logger) async -> Int
    where C.Duration == Duration {
        let own = getpid()
        let left = of(own).filter { !$0.isZombie }
        reapZombies(own)
        guard !left.isEmpty else { return 0 }
        logger.notice(
            "stopped \(left.count) leftover process\(left.count == 1 ? "" : "es") of the adapters",
            metadata: ["pids": "\(left.map(\.pid))"])
        for process in left { kill(process.pid, SIGTERM) }
        for signal in [SIGKILL, 0] {
            let deadline = clock.now.advanced(by: signal == SIGKILL ? grace : .seconds(1))
            while clock.now < deadline, !of(own).allSatisfy(\.isZombie) {
                reapZombies(own)
                try? await clock.sleep(for: .milliseconds(20))
            }
            reapZombies(own)
            let stubborn = of(own).filter { !$0.isZombie }
            guard signal == SIGKILL, !stubborn.isEmpty else { break }
            for process in stubborn { kill(process.pid, SIGKILL) }
        }
        reapZombies(own)
        return left.count
    }

    /// While the daemon runs: reaps the orphans it adopted that have exited, so that they do not
    /// pile up as zombies. Programs are left to their supervisors. Every 10 s, so it reads only
    /// the daemon's own children where the kernel lists them, not every process on the device.
    static func reapAdopted() {
        let own = getpid()
        let children =
            ProcFiles.children(of: own).map {
                $0.compactMap { pid in ProcFiles.stat(of: pid).map { process(pid, $0) } }
            }
            ?? of(own).filter { $0.parent == own }
        for process in children where process.isZombie && !process.isProgram {
            var status: Int32 = 0
            _ = waitpid(process.pid, &status, WNOHANG)
        }
    }

    /// Reaps the daemon's own children that have exited (the orphans it adopted), one by one:
    /// never `waitpid(-1)`, which could take a program's status from its supervisor.
    private static func reapZombies(_ own: pid_t) {
        for process in of(own) where process.parent == own && process.isZombie {
            var status: Int32 = 0
            _ = waitpid(process.pid, &status, WNOHANG)
        }
    }
}
