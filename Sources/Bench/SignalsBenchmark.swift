import API
import Client
import FoundationEssentials
import SharedTypes
import SignalCrypto
import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// `secure-signals bench signals`: drives a daemon over its socket with C concurrent
/// keep-alive connections, 8 adapters each answering a 64-byte plaintext at once, and
/// compares against the crypto floor measured in the same run: the same 8 seals done
/// in-process, one after another.
@MemberwiseInit
public struct SignalsBenchmark {
    public struct Row: Sendable {
        public var connections: Int
        /// Between one answer and the next request on a connection: zero, back to back.
        public var pause: Duration
        /// `GET /v1/health` instead of the signals: the paced baseline, a request that does nothing.
        public var health: Bool
        public var requests: Int
        public var queriesPerSecond: Double
        public var p50: Duration
        public var p99: Duration
        public var p999: Duration
        /// Share of one core this process (the client) used while driving the daemon.
        public var clientCPU: Double
        /// The daemon's CPU time (user and system, on every core) per request answered: unlike
        /// latency, it does not count the time threads spend waking up. Nil without its pid.
        public var daemonCPUPerRequest: Duration?
        /// The crypto floor, measured just before and just after this level (their mean).
        public var floor: Duration
    }

    public struct Report: Sendable {
        public var rows: [Row]
        public var adapters: Int
    }

    public var socketPath: String
    public var secondsPerLevel: Double = 5
    public var levels: [Int] = [1, 8]
    public var adapters: Int = 8
    /// When set, two last rows at C = 1 with this pause between requests: a device's few requests
    /// a minute, between which the ephemeral key pool is full again; first `GET /v1/health`,
    /// what any request pays for coming after a pause (its threads woken, its caches cold),
    /// then the signals.
    public var pacedPause: Duration?
    /// The daemon's process, whose CPU time each row reports per request.
    public var daemonPID: Int32?

    public func run(floorSealer: EnvelopeSealer) async throws -> Report {
        // Warm-up: the first requests pay for connections and caches.
        try await Self.probe(socketPath: socketPath, adapters: adapters)
        // The machine's speed drifts: each level is compared with a floor taken around it.
        var rows: [Row] = []
        let runs =
            levels.map { ($0, Duration.zero, false) } + (pacedPause.map { [(1, $0, true), (1, $0, false)] } ?? [])
        for (connections, pause, health) in runs {
            let before = try floor(sealer: floorSealer)
            var row = try await measure(connections: connections, pause: pause, health: health)
            let after = try floor(sealer: floorSealer)
            row.floor = (before + after) / 2
            rows.append(row)
        }
        return Report(rows: rows, adapters: adapters)
    }

    /// The median time of `adapters` seals of a payload like the daemon's, one after another.
    func floor(sealer: EnvelopeSealer) throws -> Duration {
        let work = try Self.floorWork(sealer: sealer, adapters: adapters)
        let clock = ContinuousClock()
        var samples: [Duration] = []
        for _ in 0..<300 {
            let start = clock.now
            try work()
            samples.append(clock.now - start)
        }
        return samples.sorted()[samples.count / 2]
    }

    /// One round of the crypto floor: `adapters` seals of a payload like the daemon's, one after
    /// another, each with a key made then.
    public static func floorWork(sealer: EnvelopeSealer, adapters: Int) throws -> () throws -> Void {
        let payload = SignalPayload(
            v: 1, adapter: "bench-0", adapterVersion: SemanticVersion(1, 0, 0), sdkVersion: SemanticVersion(1, 0, 0),
            requestID: "bench-00000000-0000-0000-0000-000000000000", issuedAtMilliseconds: 1_795_000_000_000,
            signal: Data(repeating: 0x41, count: 64).base64EncodedString())
        let encoded = Array(try WireFormat.encoder().encode(payload))
        return {
            for _ in 0..<adapters { _ = try sealer.seal(encoded) }
        }
    }

    /// The body of every signals request the benchmarks send.
    static let requestBody = Data(#"{"request_id":"bench"}"#.utf8)

    /// One signals request, which must answer a signal from each of the `adapters` and no error.
    static func probe(socketPath: String, adapters: Int) async throws {
        let probe = try await DaemonClient(socketPath: socketPath).collect(requestID: "bench-warmup")
        guard probe.signals.count == adapters, probe.errors.isEmpty else {
            throw BenchFailure(
                "the daemon on \(socketPath) answered \(probe.signals.count) signals and \(probe.errors.count) errors; the benchmark needs \(adapters) signals and no errors"
            )
        }
    }

    private func measure(connections: Int, pause: Duration, health: Bool) async throws -> Row {
        let load = Load(socketPath: socketPath, connections: connections)
        let cpuBefore = ProcessCPUTime.current
        let daemonBefore = daemonPID.flatMap { ProcessFootprint.of($0)?.cpuSeconds }
        let run: (latencies: [Duration], elapsed: Duration)
        do {
            run = try await load.drive(
                health ? Endpoints.health.path() : Endpoints.signals.path(),
                body: health ? nil : Self.requestBody,
                for: .nanoseconds(Int64(secondsPerLevel * 1e9)), pause: pause)
        } catch {
            await load.shutdown()
            throw error
        }
        await load.shutdown()
        let cpu = ProcessCPUTime.current - cpuBefore
        var daemonPerRequest: Duration?
        // Half a second of CPU at least (50 ticks of 10 ms): a shorter measure says too little.
        if let daemonPID, let before = daemonBefore, let after = ProcessFootprint.of(daemonPID)?.cpuSeconds,
            after - before >= 0.5
        {
            daemonPerRequest = .nanoseconds(Int64((after - before) / Double(run.latencies.count) * 1e9))
        }
        return Row(
            connections: connections, pause: pause, health: health, requests: run.latencies.count,
            queriesPerSecond: Double(run.latencies.count) / seconds(run.elapsed),
            p50: percentile(run.latencies, 0.5), p99: percentile(run.latencies, 0.99),
            p999: percentile(run.latencies, 0.999), clientCPU: cpu / seconds(run.elapsed),
            daemonCPUPerRequest: daemonPerRequest, floor: .zero)
    }
}

/// A duration in seconds, for printing.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
