import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle

/// Serves the socket API on a listening socket systemd handed over (socket activation).
/// Hummingbird binds only paths and ports, so this does what its `Server` does on an
/// existing descriptor: NIO accepts, `DaemonChannel` speaks HTTP/1.1, and on
/// graceful shutdown the listener closes while open connections finish their requests.
struct ActivatedSocketServer<Responder: HTTPResponder>: Service where Responder.Context == DaemonRequestContext {
    let descriptor: Int32
    let responder: Responder
    let limits: ClientLimits
    let logger: Logger
    let onListening: @Sendable () -> Void

    func run() async throws {
        let responder = self.responder
        let logger = self.logger
        let channelSetup = DaemonChannel(
            responder: { request, writer, channel in
                let context = DaemonRequestContext(
                    source: ApplicationRequestContextSource(channel: channel, logger: logger))
                let response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch {
                    logger.debug("request failed", metadata: ["error": "\(error)"])
                    response = Response(status: .internalServerError)
                }
                try await writer.write(response: response.head, body: response.body)
            }, limits: limits)
        let group = MultiThreadedEventLoopGroup.singleton
        let quiescing = ServerQuiescingHelper(group: group)
        let server = try await ServerBootstrap(group: group)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .bind(descriptor) { channel in channelSetup.setup(channel: channel, logger: logger) }
        onListening()
        try await withGracefulShutdownHandler {
            try await server.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { tasks in
                    for try await connection in connections {
                        tasks.addTask { await channelSetup.handle(value: connection, logger: logger) }
                    }
                }
            }
        } onGracefulShutdown: {
            // Stop accepting; each open connection closes after the request it is serving.
            quiescing.initiateShutdown(promise: nil)
        }
    }
}
