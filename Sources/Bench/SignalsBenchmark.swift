import Client
import Foundation
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
public struct SignalsBenchmark {
    public struct Row: Sendable {
        public var connections: Int
        /// Between one answer and the next request on a connection: zero, back to back.
        public var pause: Duration
        public var requests: Int
        public var queriesPerSecond: Double
        public var p50: Duration
        public var p99: Duration
        public var p999: Duration
        /// Share of one core this process (the client) used while driving the daemon.
        public var clientCPU: Double
        /// The crypto floor, measured just before and just after this level (their mean).
        public var floor: Duration
    }

    public struct Report: Sendable {
        public var rows: [Row]
        public var adapters: Int
    }

    public var socketPath: String
    public var secondsPerLevel: Double
    public var levels: [Int]
    public var adapters: Int
    /// When set, a last row at C = 1 with this pause between requests: a device's few requests
    /// a minute, between which the ephemeral key pool is full again.
    public var pacedPause: Duration?

    public init(
        socketPath: String, secondsPerLevel: Double = 5, levels: [Int] = [1, 8], adapters: Int = 8,
        pacedPause: Duration? = nil
    ) {
        self.pacedPause = pacedPause
        self.socketPath = socketPath
        self.secondsPerLevel = secondsPerLevel
        self.levels = levels
        self.adapters = adapters
    }

    public func run(floorSealer: EnvelopeSealer) async throws -> Report {
        // Warm-up: the first requests pay for connections and caches.
        let warm = DaemonClient(socketPath: socketPath)
        let probe = try await warm.collect(requestID: "bench-warmup")
        guard probe.signals.count == adapters, probe.errors.isEmpty else {
            throw BenchFailure(
                "the daemon on \(socketPath) answered \(probe.signals.count) signals and \(probe.errors.count) errors; the benchmark needs \(adapters) signals and no errors"
            )
        }
        // The machine's speed drifts: each level is compared with a floor taken around it.
        var rows: [Row] = []
        let runs = levels.map { ($0, Duration.zero) } + (pacedPause.map { [(1, $0)] } ?? [])
        for (connections, pause) in runs {
            let before = try floor(sealer: floorSealer)
            var row = try await measure(connections: connections, pause: pause)
            let after = try floor(sealer: floorSealer)
            row.floor = (before + after) / 2
            rows.append(row)
        }
        return Report(rows: rows, adapters: adapters)
    }

    /// The median time of `adapters` seals of a payload like the daemon's, one after another.
    func floor(sealer: EnvelopeSealer) throws -> Duration {
        let payload = SignalPayload(
            v: 1, adapter: "bench-0", adapterVersion: SemanticVersion(1, 0, 0), sdkVersion: SemanticVersion(1, 0, 0),
            requestID: "bench-00000000-0000-0000-0000-000000000000", issuedAtMilliseconds: 1_795_000_000_000,
            signal: Data(repeating: 0x41, count: 64).base64EncodedString())
        let encoded = Array(try WireFormat.encoder().encode(payload))
        let clock = ContinuousClock()
        var samples: [Duration] = []
        for _ in 0..<300 {
            let start = clock.now
            for _ in 0..<adapters { _ = try sealer.seal(encoded) }
            samples.append(clock.now - start)
        }
        return samples.sorted()[samples.count / 2]
    }

    private func measure(connections: Int, pause: Duration) async throws -> Row {
        let load = Load(socketPath: socketPath, connections: connections)
        let cpuBefore = processCPUTime()
        let run: (latencies: [Duration], elapsed: Duration)
        do {
            run = try await load.drive(
                body: Data(#"{"request_id":"bench"}"#.utf8), for: .nanoseconds(Int64(secondsPerLevel * 1e9)),
                pause: pause)
        } catch {
            await load.shutdown()
            throw error
        }
        await load.shutdown()
        let cpu = processCPUTime() - cpuBefore
        return Row(
            connections: connections, pause: pause, requests: run.latencies.count,
            queriesPerSecond: Double(run.latencies.count) / seconds(run.elapsed),
            p50: percentile(run.latencies, 0.5), p99: percentile(run.latencies, 0.99),
            p999: percentile(run.latencies, 0.999), clientCPU: cpu / seconds(run.elapsed), floor: .zero)
    }
}

/// A duration in seconds, for printing.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// User plus system CPU time of this process, in seconds.
func processCPUTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
