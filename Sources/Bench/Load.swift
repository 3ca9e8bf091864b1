import API
import AsyncHTTPClient
import Client
import FoundationEssentials
import NIOPosix

/// Drives one route of the daemon over a number of concurrent keep-alive connections.
struct Load {
    let client: DaemonClient
    private let http: HTTPClient
    let connections: Int

    init(socketPath: String, connections: Int) {
        var pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(60))
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        http = HTTPClient(
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            configuration: HTTPClient.Configuration(connectionPool: pool))
        client = DaemonClient(socketPath: socketPath, client: http)
        self.connections = connections
    }

    /// `body` driving C connections to the socket; the connections are shut down whatever it does.
    static func using<Value>(
        socketPath: String, connections: Int, _ body: (Load) async throws -> Value
    ) async throws -> Value {
        let load = Load(socketPath: socketPath, connections: connections)
        do {
            let value = try await body(load)
            await load.shutdown()
            return value
        } catch {
            await load.shutdown()
            throw error
        }
    }

    func shutdown() async {
        try? await http.shutdown()
    }

    /// Sends `body` (POST; GET without one) on every connection for `duration`, back to back or
    /// `pause` apart; the latencies, sorted, and the time it took.
    func drive(_ path: String = Endpoints.signals.path(), body: Data?, for duration: Duration, pause: Duration = .zero)
        async throws -> (
            latencies: [Duration], elapsed: Duration
        )
    {
        let clock = ContinuousClock()
        let start = clock.now
        let client = self.client
        let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for _ in 0..<connections {
                group.addTask {
                    var mine: [Duration] = []
                    while clock.now - start < duration {
                        let sent = clock.now
                        let reply = try await client.request(body == nil ? .GET : .POST, path, json: body)
                        guard reply.status == 200 else { throw BenchFailure("the daemon answered \(reply.status)") }
                        mine.append(clock.now - sent)
                        if pause > .zero { try await Task.sleep(for: pause) }
                    }
                    return mine
                }
            }
            var all: [Duration] = []
            for try await part in group { all += part }
            return all.sorted()
        }
        return (latencies, clock.now - start)
    }
}

/// The `p` quantile of sorted, non-empty `latencies`.
func percentile(_ latencies: [Duration], _ p: Double) -> Duration {
    latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
}
