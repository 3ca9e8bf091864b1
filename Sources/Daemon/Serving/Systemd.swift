import FoundationEssentials
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The service manager's side channel (sd_notify(3)): READY=1, STATUS=, WATCHDOG=1,
/// STOPPING=1 as datagrams to `$NOTIFY_SOCKET`. Silent when not run by systemd.
public struct SystemdNotifier: Sendable {
    private let address: UnixSocketAddress?
    /// Half of `$WATCHDOG_USEC`, when systemd asks for watchdog pings for this process.
    public let watchdogInterval: Duration?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let path = environment["NOTIFY_SOCKET"], !path.isEmpty, path.hasPrefix("/") || path.hasPrefix("@") {
            var bytes = Array(path.utf8)
            if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract namespace
            address = UnixSocketAddress(bytes)
        } else {
            address = nil
        }
        if let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0,
            environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == getpid() }) ?? true
        {
            watchdogInterval = .microseconds(usec / 2)
        } else {
            watchdogInterval = nil
        }
    }

    public var isActive: Bool { address != nil }

    /// Sends one notification such as "READY=1\nSTATUS=serving"; failures are ignored, as
    /// sd_notify's are: the daemon must not depend on its supervisor listening.
    public func notify(_ state: String) {
        guard let address else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let message = Array(state.utf8)
        _ = address.withSockaddr { sendto(fd, message, message.count, Int32(MSG_NOSIGNAL), $0, $1) }
    }
}

/// The listening socket systemd hands over (sd_listen_fds(3)): fd 3 when `$LISTEN_PID` is
/// this process and `$LISTEN_FDS` ≥ 1. The variables are removed so that children (exec
/// adapters) do not take the socket for theirs.
public enum SocketActivation {
    public static let firstDescriptor: Int32 = 3

    /// Whether systemd hands this process its listening socket (or has handed it, at a reload):
    /// the configured socket path is then not the daemon's to make.
    public static var isOffered: Bool {
        let environment = ProcessInfo.processInfo.environment
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1
        else { return taken.load(ordering: .relaxed) }
        return true
    }

    private static let taken = Atomic<Bool>(false)

    public static func takeListeningDescriptor() -> Int32? {
        let offered = isOffered
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        guard offered else { return nil }
        taken.store(true, ordering: .relaxed)
        _ = fcntl(firstDescriptor, F_SETFD, FD_CLOEXEC)
        return firstDescriptor
    }
}
