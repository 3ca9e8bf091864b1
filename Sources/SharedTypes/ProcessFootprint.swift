import FoundationEssentials

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
        guard let status = ProcFiles.numbers("status", of: pid), let resident = status["VmRSS"],
            let descriptors = ProcFiles.openDescriptors(of: pid)
        else { return nil }
        var footprint = ProcessFootprint(residentBytes: resident * 1024, openDescriptors: descriptors)
        footprint.virtualBytes = (status["VmSize"] ?? 0) * 1024
        let ticks = ProcFiles.ticksPerSecond
        if let stat = ProcFiles.stat(of: pid), ticks > 0, let boot = ProcFiles.bootTime {
            footprint.cpuSeconds = Double(stat.userTicks + stat.systemTicks) / ticks
            footprint.startTime = boot + Double(stat.startTicks) / ticks
        }
        return footprint
    }
}
