import AsyncAlgorithms
import Hummingbird
import Mediation
import NIOCore
import ServiceLifecycle

/// Server-Sent Events: a comment line at once (so a client knows it is subscribed), then one
/// `id:`/`event:`/`data:` record per event (ids increasing across the daemon), and a comment every 15 s (so that proxies and clients see
/// the stream is alive). Nothing waits between the hub and the socket but the subscription's
/// own bounded buffer: a client that stops reading fills it and is let go.
enum EventStream {
    static let heartbeat = Duration.seconds(15)

    /// The stream's body: `events` as they come, each written as `record` says, until the
    /// connection closes. Forwarding and the heartbeat are child tasks of the body's writing:
    /// they end with it.
    static func body<Event: Sendable>(
        _ events: AsyncStream<Event>, connectionClosed: EventLoopFuture<Void>,
        record: @escaping @Sendable (Event) -> String
    ) -> ResponseBody {
        ResponseBody { writer in
            // Each send waits until the writer takes it, so the subscription's buffer is the only one.
            let output = AsyncChannel<ByteBuffer>()
            // A client that goes away ends its subscription at once, not at the next write.
            connectionClosed.whenComplete { _ in output.finish() }
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask {
                    // A stop ends the stream (a client resumes from its last id), so that the
                    // daemon's drain does not wait on a response that never ends.
                    await withGracefulShutdownHandler {
                        await output.send(ByteBuffer(string: ": subscribed\n\n"))
                        for await event in events { await output.send(ByteBuffer(string: record(event))) }
                        output.finish()
                    } onGracefulShutdown: {
                        output.finish()
                    }
                }
                group.addTask {
                    while (try? await Task.sleep(for: heartbeat)) != nil {
                        await output.send(ByteBuffer(string: ": keep-alive\n\n"))
                    }
                }
                for await buffer in output { try await writer.write(buffer) }
                group.cancelAll()
            }
            try await writer.finish(nil)
        }
    }
}
