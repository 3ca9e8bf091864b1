import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// The socket API's server: on the listening socket systemd handed over, or on the configured
/// path, made with its mode and group.
enum SocketServer {
    static func make(
        for application: DaemonApplication, configuration: ResolvedConfiguration, logger: Logger,
        onListening: @escaping @Sendable () -> Void
    ) throws -> any Service {
        if let descriptor = SocketActivation.takeListeningDescriptor() {
            logger.notice("serving the socket systemd handed over", metadata: ["fd": "\(descriptor)"])
            return ActivatedSocketServer(
                descriptor: descriptor, responder: application.responder, limits: application.limits, logger: logger,
                onListening: onListening)
        }
        try prepareSocketPath(configuration.socketPath)
        let path = configuration.socketPath
        let mode = configuration.socketMode
        let group = configuration.socketGroup
        return Application(
            responder: application.responder,
            server: .daemon(limits: application.limits),
            // A burst of connections (a flood, refused over the caps) must not overflow the
            // queue of those not yet accepted, or a well-behaved client's connect fails: as deep
            // as the kernel allows by default (net.core.somaxconn, 4096 since Linux 5.4).
            configuration: ApplicationConfiguration(
                address: .unixDomainSocket(path: path), serverName: nil, backlog: 4096),
            onServerRunning: { _ in
                if chmod(path, mode) != 0 {
                    logger.error("cannot set the socket's mode", metadata: ["errno": "\(errno)"])
                }
                if let group, chown(path, uid_t.max, group) != 0 {
                    logger.error(
                        "cannot set the socket's group; is the daemon a member of it?",
                        metadata: ["group": "\(group)", "errno": "\(errno)"])
                }
                logger.notice("listening", metadata: ["socket": "\(path)"])
                onListening()
            },
            logger: logger)
    }

    /// Refuses to take over a socket a live daemon listens on (its directory was made at start).
    static func prepareSocketPath(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        if UnixSocketAddress.isListening(path) {
            throw ConfigurationError(file: path, path: "", reason: "another daemon listens on this socket")
        }
    }
}
