import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Timing

/// A router served on 127.0.0.1 at a free port: the stand-in for a server the daemon talks to
/// (a bidder, an ad server, a tracker) in the benchmarks and the tests. It serves once made,
/// and is stopped, by `stop` or when released, by a graceful shutdown, never by cancelling
/// its group: a connection accepted but not yet served, or a response still being written
/// (a slow answer the client gave up on), must be finished, or NIO's writer traps
/// (apple/swift-nio#3481).
public final class LoopbackServer: Sendable {
    public let port: Int
    /// `http`, or `https` for a server the caller built with TLS.
    public let scheme: String
    private let group: ServiceGroup
    /// Runs the group until it is cancelled, then shuts it down gracefully and waits for it.
    private let running: Task<Void, Never>

    /// `server`: how connections are served (plain HTTP/1.1 unless a caller adds TLS, in
    /// which case `scheme` is `https`).
    public init(
        router: Router<BasicRequestContext>, name: String, server: HTTPServerBuilder = .http1(),
        scheme: String = "http"
    ) async throws {
        self.scheme = scheme
        let quiet = Logger(label: name, factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, server: server,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: quiet)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [app], gracefulShutdownSignals: [], cancellationSignals: [], logger: quiet))
        self.group = group
        // Cancelled by `stop`, or by `deinit` when a caller never stops it; the group itself is
        // never cancelled: it runs uncancelled until the graceful shutdown ends it.
        running = Task {
            async let serving: Void = uncancelled { try? await group.run() }
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            await group.triggerGracefulShutdown()
            await serving
        }
        var found = 0
        for await port in ports { found = port }
        guard found > 0 else { throw BenchFailure("\(name) did not start") }
        port = found
    }

    /// `path` on this server, as a URL.
    public func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// Stops serving and returns once it has: the listener and idle connections are closed,
    /// answers under way finished.
    public func stop() async {
        running.cancel()
        await running.value
    }

    deinit {
        // A caller that never stopped it: shut down gracefully in the background.
        running.cancel()
    }
}
