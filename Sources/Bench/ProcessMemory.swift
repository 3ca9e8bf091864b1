import Foundation

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
        guard let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"),
            let resident = field("Rss:", in: rollup), let proportional = field("Pss:", in: rollup),
            let privateDirty = field("Private_Dirty:", in: rollup), let threads = field("Threads:", in: status)
        else { return nil }
        return ProcessMemory(
            residentBytes: resident * 1024, proportionalBytes: proportional * 1024,
            privateDirtyBytes: privateDirty * 1024, descriptors: descriptors.count, threads: threads)
    }

    /// The number after `key` on its line (kB for the memory fields).
    private static func field(_ key: String, in text: String) -> Int? {
        text.split(separator: "\n").first { $0.hasPrefix(key) }?
            .split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
    }
}
