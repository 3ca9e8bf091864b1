import HummingbirdCore
import Logging
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Hummingbird's HTTP/1 channel with the peer's credentials (SO_PEERCRED, and its user's
/// groups) read once per connection, when it is accepted, and visible to every request on it through a task-local:
/// a lookup per request would cost a hop to the event loop each time.
struct PeerCredentialChannel<Inner: ServerChildChannel>: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let inner: Inner.Value
        let peer: PeerCredentials?
        var channel: any Channel { inner.channel }
    }

    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let inner = self.inner
        return Self.read(from: channel).flatMap { peer in
            inner.setup(channel: channel, logger: logger).map { Value(inner: $0, peer: peer) }
        }
    }

    func handle(value: Value, logger: Logger) async {
        await PeerCredentialScope.$current.withValue(value.peer) {
            await inner.handle(value: value.inner, logger: logger)
        }
    }

    /// SO_PEERCRED of an accepted Unix socket; nil on any other socket.
    static func read(from channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider, case .unixDomainSocket? = channel.localAddress else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let raw: EventLoopFuture<PeerCredentialBytes> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        // The group lookup reads the local group database once per connection.
        return raw.map {
            Optional(
                PeerCredentials(
                    pid: $0.pid, uid: $0.uid, gid: $0.gid,
                    groups: PeerCredentials.groups(ofUser: $0.uid, primary: $0.gid)))
        }.recover { _ in nil }
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

extension HTTPServerBuilder {
    /// HTTP/1.1 with peer credentials read once per connection.
    static func http1WithPeerCredentials(configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            PeerCredentialChannel(inner: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }
}
