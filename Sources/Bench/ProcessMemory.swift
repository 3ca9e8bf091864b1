import SharedTypes

/// What a process holds, as the kernel accounts it (`/proc/PID/smaps_rollup` and `status`):
/// resident, proportional (shared pages divided among their users) and private dirty memory,
/// descriptors and threads.
public struct ProcessMemory: Sendable, Equatable {
    /// Rss: every page mapped and present, shared ones whole.
    public var residentBytes: Int
    /// Pss: shared pages divided among the processes that map them; what this one costs the device.
    public var proportionalBytes: Int
    /// Private_Dirty: pages only this process has written: its heap and stacks, what no file backs.
    public var privateDirtyBytes: Int
    public var descriptors: Int
    public var threads: Int

    /// Process `pid`'s memory now; nil once it is gone (or on a kernel older than 4.14).
    public static func of(_ pid: Int32) -> ProcessMemory? {
        guard let rollup = ProcFiles.numbers("smaps_rollup", of: pid),
            let status = ProcFiles.numbers("status", of: pid),
            let descriptors = ProcFiles.openDescriptors(of: pid), let resident = rollup["Rss"],
            let proportional = rollup["Pss"], let privateDirty = rollup["Private_Dirty"],
            let threads = status["Threads"]
        else { return nil }
        return ProcessMemory(
            residentBytes: resident * 1024, proportionalBytes: proportional * 1024,
            privateDirtyBytes: privateDirty * 1024, descriptors: descriptors, threads: threads)
    }
}
