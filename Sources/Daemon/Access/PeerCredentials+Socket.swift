import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

extension PeerCredentials {
    /// SO_PEERCRED of an accepted Unix socket (without the user's groups: `withGroups` adds them,
    /// once the connection is admitted); nil on any other socket. Read once per connection, when
    /// it is accepted: a lookup per request would cost a hop to the event loop each time.
    static func read(from channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider, case .unixDomainSocket? = channel.localAddress else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let raw: EventLoopFuture<PeerCredentialBytes> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        return raw.map { Optional(PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid)) }.recover { _ in nil }
    }

    /// These credentials with the groups their user belongs to (the local group database) and,
    /// when `readingProcess`, their process's cgroup and executable (`/proc`): read once per
    /// admitted connection, and never for one refused over a cap.
    func completed(readingProcess: Bool) -> PeerCredentials {
        PeerCredentials(
            pid: pid, uid: uid, gid: gid, groups: PeerCredentials.groups(ofUser: uid, primary: gid),
            process: readingProcess ? PeerProcess(pid: pid, uid: uid) : PeerProcess())
    }
}

/// Where a connection's credentials live while its requests are handled.
enum PeerCredentialScope {
    @TaskLocal static var current: PeerCredentials?
}

/// `struct ucred` (pid, uid, gid), which Swift's Glibc does not export: the same layout.
struct PeerCredentialBytes: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
