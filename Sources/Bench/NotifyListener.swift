import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
public final class NotifyListener: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    public private(set) var messages: [String] = []
    /// When each of `messages` was received.
    public private(set) var arrivals: [ContinuousClock.Instant] = []

    public init(path: String) throws {
        self.path = path
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw BenchFailure("\(path): too long for a socket address")
        }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, bound == 0 else { throw BenchFailure("cannot bind \(path)") }
    }

    deinit { close(fd) }

    /// Waits until a message satisfies `predicate`, looking every `interval`; answers it, or nil
    /// at the timeout.
    public func wait(
        timeout: Duration = .seconds(15), every interval: Duration = .milliseconds(10), for predicate: (String) -> Bool
    ) async -> String? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var checked = 0
        while clock.now < deadline {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                messages.append(String(decoding: buffer.prefix(count), as: UTF8.self))
                arrivals.append(clock.now)
            }
            while checked < messages.count {
                defer { checked += 1 }
                if predicate(messages[checked]) { return messages[checked] }
            }
            if count <= 0 { try? await Task.sleep(for: interval) }
        }
        return nil
    }
}
