#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's standard error, written with write(2): one call per line where the kernel
/// takes it whole, so that concurrent lines reach journald one record each.
enum StandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var done = 0
        bytes.withUnsafeMutableBytes { buffer in
            while done < buffer.count {
                let written = Glibc.write(2, buffer.baseAddress.map { $0 + done }, buffer.count - done)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                done += written
            }
        }
    }
}
