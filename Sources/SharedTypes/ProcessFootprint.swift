#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// What a process holds and has used, from `/proc`: memory, descriptors, CPU time. Read by the
/// benchmarks about the daemon, and by the daemon about itself for its `process_*` metrics.
public struct ProcessFootprint: Sendable, Equatable {
    /// VmRSS, in bytes.
    public var residentBytes: Int
    public var openDescriptors: Int
    /// VmSize, in bytes.
    public var virtualBytes: Int = 0
    /// User and system CPU time, in seconds.
    public var cpuSeconds: Double = 0
    /// When the process started, in seconds since the Unix epoch.
    public var startTime: Double = 0

    public var residentMegabytes: Double { Double(residentBytes) / 1_048_576 }

    public init(residentBytes: Int, openDescriptors: Int) {
        self.residentBytes = residentBytes
        self.openDescriptors = openDescriptors
    }

    /// The footprint of process `pid`; nil once it is gone.
    public static func of(_ pid: Int32) -> ProcessFootprint? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let resident = kilobytes(of: "VmRSS:", in: status),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        var footprint = ProcessFootprint(residentBytes: resident * 1024, openDescriptors: descriptors.count)
        footprint.virtualBytes = (kilobytes(of: "VmSize:", in: status) ?? 0) * 1024
        // proc(5): after the command's closing parenthesis, utime, stime and starttime are
        // fields 14, 15 and 22, in clock ticks (starttime since boot).
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        {
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            if fields.count > 19, ticks > 0, let user = Double(fields[11]), let system = Double(fields[12]),
                let started = Double(fields[19]), let boot = bootTime()
            {
                footprint.cpuSeconds = (user + system) / ticks
                footprint.startTime = boot + started / ticks
            }
        }
        return footprint
    }

    private static func kilobytes(of key: String, in status: String) -> Int? {
        status.split(separator: "\n").first { $0.hasPrefix(key) }?
            .split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// `btime` of /proc/stat: when the system booted, in seconds since the epoch.
    private static func bootTime() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return stat.split(separator: "\n").first { $0.hasPrefix("btime ") }?
            .split(separator: " ").last.flatMap { Double($0) }
    }
}
