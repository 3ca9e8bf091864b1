import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The one reader of `/proc` (proc(5)): a process's `stat` fields, the `Key: value` lines of
/// its `status` and `smaps_rollup`, its open descriptors, its children, its cgroup and its
/// executable; the clock tick and the boot time.
public enum ProcFiles {
    /// `/proc/PID/stat`, the fields the daemon uses.
    public struct Stat: Sendable, Equatable {
        /// R, S, D, Z, T ...
        public var state: Character
        public var parent: Int32
        public var processGroup: Int32
        public var session: Int32
        /// CPU time in user and kernel mode, in clock ticks.
        public var userTicks: UInt64
        public var systemTicks: UInt64
        /// When the process started, in clock ticks since boot: with its pid, it names one
        /// process (a pid is reused, never with the same start time).
        public var startTicks: UInt64
    }

    public static func stat(of pid: Int32) -> Stat? {
        (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).flatMap(stat(parsing:))
    }

    /// A `stat` line: `pid (comm) state ppid ...`; the command may hold spaces and parentheses,
    /// so the fields are read after its last `)` (state is then the first, starttime the 20th).
    public static func stat(parsing line: String) -> Stat? {
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        guard fields.count >= 4, let state = fields[0].first, let parent = Int32(fields[1]),
            let group = Int32(fields[2]), let session = Int32(fields[3])
        else { return nil }
        let number = { (index: Int) -> UInt64 in fields.count > index ? UInt64(fields[index]) ?? 0 : 0 }
        return Stat(
            state: state, parent: parent, processGroup: group, session: session, userTicks: number(11),
            systemTicks: number(12), startTicks: number(19))
    }

    /// The `Key: value` lines of `/proc/PID/FILE` (`status`, `smaps_rollup`): each key's first
    /// number (kB for memory); nil once the process is gone.
    public static func numbers(_ file: String, of pid: Int32) -> [String: Int]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8) else { return nil }
        var numbers: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0].hasSuffix(":"), let value = Int(words[1]) else { continue }
            numbers[String(words[0].dropLast())] = value
        }
        return numbers
    }

    /// The cgroup v2 path of process `pid` (`/system.slice/news.service`); nil once it is gone.
    public static func cgroup(of pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)).flatMap(cgroup(parsing:))
    }

    /// The unified (v2) path of a `/proc/PID/cgroup` text: its `0::PATH` line.
    public static func cgroup(parsing text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            return String(line.dropFirst(3))
        }
        return nil
    }

    /// The program process `pid` runs (`/proc/PID/exe`), also when it was replaced on disk
    /// since; nil when it cannot be read (gone, or another user's to a daemon not root).
    public static func executable(of pid: Int32) -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")).map {
            $0.hasSuffix(" (deleted)") ? String($0.dropLast(" (deleted)".count)) : $0
        }
    }

    /// How many descriptors process `pid` holds open; nil once it is gone.
    public static func openDescriptors(of pid: Int32) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// The numbers of the descriptors process `pid` holds open (for this process, the listing's
    /// own among them); nil once it is gone.
    public static func openDescriptorNumbers(of pid: Int32) -> [Int32]? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.compactMap { Int32($0) }
    }

    /// The children of each of process `pid`'s threads (`/proc/PID/task/TID/children`); nil
    /// where the kernel has no such files (built without CONFIG_PROC_CHILDREN), or once it is gone.
    public static func children(of pid: Int32) -> [Int32]? {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else {
            return nil
        }
        var children: [Int32] = []
        for thread in threads {
            // A thread that ended since the listing has none; a kernel without the files has none anywhere.
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/children", encoding: .utf8)
            else {
                guard FileManager.default.fileExists(atPath: "/proc/\(pid)/task/\(thread)") else { continue }
                return nil
            }
            children += text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int32($0) }
        }
        return children
    }

    /// Clock ticks a second (`stat`'s times are in them).
    public static var ticksPerSecond: Double { Double(sysconf(Int32(_SC_CLK_TCK))) }

    /// `btime` of `/proc/stat`: when the system booted, in seconds since the epoch.
    public static var bootTime: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return stat.split(separator: "\n").first { $0.hasPrefix("btime ") }?
            .split(separator: " ").last.flatMap { Double($0) }
    }
}
