import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Replaces a file whole, durably: the bytes go to a new file beside it, which is synced and
/// renamed over it, then the directory is synced; a crash or power cut leaves the old file or
/// the new one, never half of either.
public enum DurableFile {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `bytes` as `path` (created with `mode` if it is new).
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t) throws(Failure) {
        let temporary = path + ".\(UUID().uuidString).new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(description: "cannot create \(temporary): \(systemError())") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            let reason = systemError()
            unlink(temporary)
            throw Failure(description: "cannot write \(path): \(reason)")
        }
        let directory = open(
            URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }
}
