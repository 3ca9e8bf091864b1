import Hummingbird
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
    private let group: ServiceGroup

    public init(router: Router<BasicRequestContext>, name: String) async throws {
        let quiet = Logger(label: name, factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: quiet)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [app], gracefulShutdownSignals: [], cancellationSignals: [], logger: quiet))
        self.group = group
        Task { try await group.run() }
        var found = 0
        for await port in ports { found = port }
        guard found > 0 else { throw BenchFailure("\(name) did not start") }
        port = found
    }

    /// `path` on this server, as an http URL.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit {
        let group = self.group
        Task { await group.triggerGracefulShutdown() }
    }
}
