#if canImport(Glibc)
    import Glibc
#endif

/// A Unix socket address for the few calls made outside NIO (sd_notify's datagram, the
/// check for a live daemon): a path, or an abstract name whose first byte is 0.
struct UnixSocketAddress {
    let bytes: [UInt8]

    /// Nil when the name does not fit `sun_path` with its terminating zero.
    init?(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return nil }
        self.bytes = bytes
    }

    /// Calls `body` with the address as a `sockaddr` and its length (an abstract name's
    /// length counts no terminating zero).
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in bytes.enumerated() { path[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1))
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// Whether something accepts connections on the Unix socket at `path`.
    static func isListening(_ path: String) -> Bool {
        guard let address = UnixSocketAddress(Array(path.utf8)) else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return address.withSockaddr { connect(fd, $0, $1) } == 0
    }
}
