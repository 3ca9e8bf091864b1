import FoundationEssentials
import Hummingbird
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
        let listener: DaemonServer<CallbackResponder<DaemonRequestContext>>.Listener
        if let descriptor = SocketActivation.takeListeningDescriptor() {
            logger.notice("serving the socket systemd handed over", metadata: ["fd": "\(descriptor)"])
            listener = .descriptor(descriptor)
        } else {
            try prepareSocketPath(configuration.socketPath)
            listener = .path(configuration.socketPath, mode: configuration.socketMode, group: configuration.socketGroup)
        }
        let state = application.state
        return DaemonServer(
            listener: listener, responder: application.responder, limits: application.limits,
            readsProcess: { state.access.apps.readsProcess }, logger: logger, onListening: onListening)
    }

    /// Refuses to take over a socket a live daemon listens on (its directory was made at start).
    static func prepareSocketPath(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        if UnixSocketAddress.isListening(path) {
            throw ConfigurationError(file: path, path: "", reason: "another daemon listens on this socket")
        }
    }
}
