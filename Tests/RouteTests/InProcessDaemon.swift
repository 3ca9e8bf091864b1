import Adapters
import Client
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Mediation
import NIOCore
import NIOHTTP1
import SecureSignals
import SharedTypes
import TestAdapters
import TestSupport

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon built in-process from a configuration, with the test adapters registered, and
/// asked through HummingbirdTesting's router client: the routes as the socket serves them,
/// with no socket, no binary and no systemd. Requests come from `peer` (this process's own
/// credentials unless a test says otherwise).
final class InProcessDaemon: Sendable {
    let application: DaemonApplication
    let peer: PeerCredentials?
    /// The daemon's own directory (its state is in `state`), gone with it.
    let directory: TemporaryDirectory

    /// `config` as the configuration file would hold it; the state directory is in a new
    /// temporary one unless it names one. `testbed` adds `POST /testbed/clock`; `clockRuns:
    /// false` stops that clock (only the test moves it). The daemon logs to `logger` (nowhere
    /// unless a test reads it).
    init(
        config: [String: Any], testbed: Bool = true, clockRuns: Bool = true,
        peer: PeerCredentials? = PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()),
        logger: Logger = Logger(label: "route-test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws {
        directory = try TemporaryDirectory()
        let configuration = try Self.resolve(config, directory: directory)
        // As the runner does before it makes the application (the state database lives there).
        try configuration.makeDirectories()
        application = try await DaemonApplication(
            configuration: configuration, registry: Self.registry, logger: logger, testbed: testbed,
            testbedClockRuns: clockRuns)
        self.peer = peer
        // As the runner's service group does; `shutdown` drains it.
        _ = application.trackers.started()
        let events = application.state.ads.events
        Task { await events.run() }
        await application.restore()
        await application.initialize()
    }

    /// The built-in adapters and the test adapters.
    static let registry: AdapterRegistry = {
        var registry = BuiltinAdapters.registry
        for type in testAdapters { registry.register(type) }
        return registry
    }()

    /// `config` resolved as `init` resolves it: for a reload.
    func resolve(_ config: [String: Any]) throws -> ResolvedConfiguration {
        try Self.resolve(config, directory: directory)
    }

    static func resolve(_ config: [String: Any], directory: TemporaryDirectory) throws
        -> ResolvedConfiguration
    {
        var config = config
        config["state_directory"] = config["state_directory"] ?? directory.path("state")
        return try ResolvedConfiguration.load(
            json: try JSONSerialization.data(withJSONObject: config), file: "(test)",
            directory: repositoryRoot, registry: registry)
    }

    /// Returns once the tracker queue has nothing more to send now: what tests await rather
    /// than sleep for "no second ping came".
    func trackersIdle() async {
        await application.trackers.idle()
    }

    /// The ads' events from now on, as the event stream's client reads them (as app `app`
    /// sees them, when given).
    func events(adUnit: String? = nil, app: AppIdentity? = nil) -> AsyncThrowingStream<ServerSentAdEvent, any Error> {
        let hub = application.state.ads.events.subscribe(EventHub.Filter(adUnit: adUnit, app: app))
        let (events, output) = AsyncThrowingStream<ServerSentAdEvent, any Error>.makeStream()
        let pump = Task {
            for await event in hub { output.yield(ServerSentAdEvent(name: event.name.rawValue, data: event.json())) }
            output.finish()
        }
        output.onTermination = { _ in pump.cancel() }
        return events
    }

    /// Runs `body` with a client of the daemon's routes; stops the adapters after it.
    func run<Value: Sendable>(_ body: @Sendable (DaemonClient) async throws -> Value) async throws -> Value {
        let app = Application(
            responder: application.responder,
            logger: Logger(label: "route-test", factory: { _ in SwiftLogNoOpLogHandler() }))
        do {
            let value = try await PeerCredentialScope.$current.withValue(peer) {
                try await app.test(.router) { client in
                    try await body(DaemonClient(transport: RouterTransport(client: client)))
                }
            }
            await application.shutdown()
            return value
        } catch {
            await application.shutdown()
            throw error
        }
    }
}

/// The client's requests handed to the routes by HummingbirdTesting, with no socket between.
struct RouterTransport: DaemonTransport {
    let client: any TestClientProtocol

    func send(
        _ method: HTTPMethod, _ path: String, body: Data?, headers fields: [(String, String)], timeout: TimeAmount
    )
        async throws -> DaemonClient.Reply
    {
        var headers = HTTPFields()
        for (name, value) in fields {
            if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
        }
        let response = try await client.execute(
            uri: path, method: HTTPRequest.Method(method.rawValue) ?? .get, headers: headers,
            body: body.map { ByteBuffer(bytes: $0) })
        var fields: [String: String] = [:]
        for field in response.headers { fields[field.name.canonicalName] = field.value }
        return DaemonClient.Reply(
            status: UInt(response.status.code), body: Data(response.body.readableBytesView), headers: fields)
    }
}
