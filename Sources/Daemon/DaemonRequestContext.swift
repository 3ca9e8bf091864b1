import Hummingbird
import Logging
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// The request context of the socket API: Hummingbird's core storage plus the connection,
/// so that the access check can read the peer's credentials.
struct DaemonRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }

    /// The peer's pid, uid and gid (SO_PEERCRED); nil where the socket cannot say (not AF_UNIX).
    func peerCredentials() async -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        guard case .unixDomainSocket? = channel.localAddress else { return nil }
        do {
            let raw: PeerCredentialBytes = try await provider.unsafeGetSocketOption(
                level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED)
            ).get()
            return PeerCredentials(pid: raw.pid, uid: raw.uid, gid: raw.gid)
        } catch {
            return nil
        }
    }
}

/// `struct ucred` (pid, uid, gid), which Swift's Glibc does not export: the same layout.
struct PeerCredentialBytes {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
