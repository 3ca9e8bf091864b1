import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// Serves the socket API on its listening socket: the one systemd handed over, or the
/// configured path (bound here, then given its mode and group). NIO accepts, `DaemonChannel`
/// speaks HTTP/1.1, and only an admitted connection becomes a task: one refused over a cap is
/// answered and closed on its event loop, so a flood of them costs no Swift concurrency at all
/// (Hummingbird's own server makes a task of every accepted connection). On graceful shutdown
/// the listener closes while open connections finish the request they are serving.
struct DaemonServer<Responder: HTTPResponder>: Service where Responder.Context == DaemonRequestContext {
    /// Where the socket comes from.
    enum Listener: Sendable {
        /// A listening descriptor systemd handed over.
        case descriptor(Int32)
        /// A path to bind, with the mode and group the socket gets.
        case path(String, mode: mode_t, group: gid_t?)
    }

    let listener: Listener
    let responder: Responder
    let limits: ClientLimits
    /// Whether an app is recognized by its cgroup or executable (the registry in force): only
    /// then is a peer's process read from /proc.
    let readsProcess: @Sendable () -> Bool
    let logger: Logger
    let onListening: @Sendable () -> Void

    /// Connections not yet accepted: a burst (a flood refused over the caps) must not overflow
    /// this queue, or a well-behaved client's connect fails. As deep as the kernel allows by
    /// default (net.core.somaxconn, 4096 since Linux 5.4).
    static var backlog: Int32 { 4096 }

    /// How long accepting pauses after it failed (out of file descriptors, say).
    static var acceptPause: TimeAmount { .milliseconds(250) }

    func run() async throws {
        let logger = self.logger
        let dates = ResponseDate()
        let channelSetup = DaemonChannel(
            responder: Self.respond(with: responder, dates: dates, logger: logger), limits: limits,
            readsProcess: readsProcess)
        let admitted = AsyncStream.makeStream(of: DaemonChannel.Value.self)
        let quiescing = ServerQuiescingHelper(group: MultiThreadedEventLoopGroup.singleton)
        let acceptFailures = RateLimitedLog(clock: ContinuousClock())
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: Self.backlog)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptPause(pause: Self.acceptPause, logger: logger, log: acceptFailures))
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channelSetup.setup(channel: channel, logger: logger).map { value in
                    if value.inner != nil { admitted.continuation.yield(value) }
                }
            }
        let server: any Channel
        do {
            server = try await bind(bootstrap).get()
        } catch {
            throw SocketBindFailure(listener: listener, error: error)
        }
        server.closeFuture.whenComplete { _ in admitted.continuation.finish() }
        onListening()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { tasks in
                for await connection in admitted.stream {
                    tasks.addTask { await channelSetup.handle(value: connection, logger: logger) }
                }
            }
        } onGracefulShutdown: {
            // Stop accepting; each open connection closes after the request it is serving.
            quiescing.initiateShutdown(promise: nil)
        }
        // Cancelled rather than shut down: the listener closes all the same.
        try? await server.close()
    }

    private func bind(_ bootstrap: ServerBootstrap) -> EventLoopFuture<any Channel> {
        switch listener {
        case .descriptor(let descriptor):
            return bootstrap.withBoundSocket(descriptor)
        case .path(let path, let mode, let group):
            let logger = self.logger
            return bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).map { channel in
                if chmod(path, mode) != 0 {
                    logger.error("cannot set the socket's mode", metadata: ["errno": "\(errno)"])
                }
                if let group, chown(path, uid_t.max, group) != 0 {
                    logger.error(
                        "cannot set the socket's group; is the daemon a member of it?",
                        metadata: ["group": "\(group)", "errno": "\(errno)"])
                }
                logger.notice("listening", metadata: ["socket": "\(path)"])
                return channel
            }
        }
    }

    /// Answers one request through the router, dated (RFC 9110 §6.6.1). The HTTP parser's
    /// errors go back to Hummingbird's channel, which closes the connection after them.
    private static func respond(
        with responder: Responder, dates: ResponseDate, logger: Logger
    ) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            let context = DaemonRequestContext(
                source: ApplicationRequestContextSource(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                logger.debug("request failed", metadata: ["error": "\(error)"])
                response = Response(status: .internalServerError)
            }
            response.headers[.date] = dates.now
            try await writer.write(response: response.head, body: response.body)
        }
    }
}

/// The socket API could not listen: one line naming the socket and the system's reason, for
/// the exit status of a configuration error (78), not NIO's own words.
struct SocketBindFailure: Error, CustomStringConvertible {
    let description: String

    init<Responder>(listener: DaemonServer<Responder>.Listener, error: any Error) {
        let reason: String
        if let error = error as? IOError {
            reason = String(cString: strerror(error.errnoCode))
        } else if String(describing: type(of: error)).contains("WrongType") {
            reason = "something other than a socket is at that path"
        } else {
            reason = "\(error)"
        }
        switch listener {
        case .descriptor(let descriptor):
            description = "cannot listen on the socket systemd handed over (fd \(descriptor)): \(reason)"
        case .path(let path, _, _):
            description = "socket.path: cannot listen on \(path): \(reason)"
        }
    }
}
