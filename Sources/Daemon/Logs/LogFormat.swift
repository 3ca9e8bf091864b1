import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// How the daemon writes its log lines to stderr.
public enum LogFormat: String, CaseIterable, Sendable, ExpressibleByArgument {
    /// `journald` when stderr is the journal, else `text`.
    case auto
    /// Timestamp, level, label, metadata, message: for a terminal or a file.
    case text
    /// A syslog priority prefix (`<4>`) and no timestamp: journald reads the priority
    /// (`journalctl -p warning`) and stamps the time itself.
    case journald

    /// The format to write in: `auto` becomes `journald` when stderr is the stream systemd's
    /// `JOURNAL_STREAM` names (its device and inode, as systemd.exec(5) says to check).
    func resolved(environment: [String: String] = ProcessInfo.processInfo.environment) -> LogFormat {
        guard self == .auto else { return self }
        return Self.stderrIsTheJournal(environment["JOURNAL_STREAM"]) ? .journald : .text
    }

    static func stderrIsTheJournal(_ stream: String?) -> Bool {
        let parts = stream?.split(separator: ":") ?? []
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
