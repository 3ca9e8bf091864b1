import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// A router served on 127.0.0.1 at a free port: the stand-in for a server the daemon talks to
/// (a bidder, an ad server, a tracker) in the benchmarks and the tests. It serves once made,
/// and is stopped when released by a graceful shutdown, never by cancellation: a response
/// still being written when the server goes (a slow answer the client gave up on) must
/// finish, or NIO's writer traps.
public final class LoopbackServer: Sendable {
    public let port: Int
    /// `http`, or `https` for a server the caller built with TLS.
    public let scheme: String
    private let group: ServiceGroup
    /// The group running, until a graceful shutdown ends it.
    private let running: Task<Void, any Error>

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
        // Ended by `stop`, or cancelled by `deinit` when a caller never stops it.
        running = Task { try await group.run() }
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
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }

    deinit {
        // A caller that never stopped it: the group is cancelled, its listener closed.
        running.cancel()
    }
}
