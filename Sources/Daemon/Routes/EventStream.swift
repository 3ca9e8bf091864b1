import Hummingbird
import Mediation
import NIOCore

/// Server-Sent Events: a comment line at once (so a client knows it is subscribed), then one
/// `event:`/`data:` pair per event, and a comment every 15 s, which also finds out when the
/// client has gone: the write fails and the subscription ends.
enum EventStream {
    static let heartbeat = Duration.seconds(15)

    static func body(_ events: AsyncStream<AdEvent>) -> AsyncStream<ByteBuffer> {
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        continuation.yield(ByteBuffer(string: ": subscribed\n\n"))
        let forward = Task {
            for await event in events {
                continuation.yield(ByteBuffer(string: "event: \(event.name.rawValue)\ndata: \(event.json())\n\n"))
            }
            continuation.finish()
        }
        let keepAlive = Task {
            while (try? await Task.sleep(for: heartbeat)) != nil {
                continuation.yield(ByteBuffer(string: ": keep-alive\n\n"))
            }
        }
        continuation.onTermination = { _ in
            forward.cancel()
            keepAlive.cancel()
        }
        return stream
    }
}
