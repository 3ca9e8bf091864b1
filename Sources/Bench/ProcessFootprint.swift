import Foundation

/// What a process holds now, from `/proc`: its resident memory and its open descriptors.
public struct ProcessFootprint: Sendable, Equatable {
    /// VmRSS, in bytes.
    public var residentBytes: Int
    public var openDescriptors: Int

    public var residentMegabytes: Double { Double(residentBytes) / 1_048_576 }

    /// The footprint of process `pid`; nil once it is gone.
    public static func of(_ pid: Int32) -> ProcessFootprint? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        return ProcessFootprint(residentBytes: kilobytes * 1024, openDescriptors: descriptors.count)
    }
}
