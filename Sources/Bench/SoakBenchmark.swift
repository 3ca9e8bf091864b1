import API
import Client
import FoundationEssentials
import SharedTypes
import Synchronization
import Timing

/// `secure-signals bench soak`: the daemon through what a hostile or broken client does, then
/// quiet. Phases: idle; stalled connections (from the attacker process); event-stream clients
/// that never read together with mixed load (signals, forced ad loads with their lifecycle,
/// privacy changes) over several connections; quiet. In each, the daemon's resident memory and
/// open descriptors (at the end and at their peak), and the p99 of `GET /v1/health` asked on a
/// fresh connection, against the idle phase's p99.
public struct SoakBenchmark {
    public struct Phase: Sendable {
        public var name: String
        public var end: ProcessFootprint
        public var peakResidentBytes: Int
        public var peakDescriptors: Int
        public var healthP99: Duration?
        public var healthFailures: Int
    }

    public struct Plan: Sendable {
        public var stalled = 2000
        public var streams = 200
        public var stalledPhase = Duration.seconds(15)
        public var mixedPhase = Duration.seconds(90)
        public var quietPhase = Duration.seconds(30)
        public var connections = 8

        public init() {}
    }

    public let daemon: BenchDaemon
    public let plan: Plan
    /// Starts the attacker process: `SoakAttacker` with these stalled and stream counts for a time.
    public let startAttacker:
        @Sendable (_ stalled: Int, _ streams: Int, _ duration: Duration) async throws -> ChildProcess

    /// The most ads the benchmark's daemon keeps (`limits.max_stored_ads`, the default): the
    /// warm-up fills its store.
    static let storedAds = 2000

    /// The daemon the benchmark runs: 8 cached file adapters, the test ad units, a socket
    /// anyone may open and uid 65534 (the attacker's, when run as root) allowed.
    public static func daemon(binary: String, environment: [String: String] = [:]) async throws -> BenchDaemon {
        try await BenchDaemon(
            daemonBinary: binary, adUnits: AdsBenchmark.units,
            extra: [
                "socket": ["mode": "0666"], "access": ["allowed_uids": [65534]],
                "limits": ["max_stored_ads": storedAds],
            ], environment: environment)
    }

    public init(
        daemon: BenchDaemon, plan: Plan,
        startAttacker: @escaping @Sendable (Int, Int, Duration) async throws -> ChildProcess
    ) {
        self.daemon = daemon
        self.plan = plan
        self.startAttacker = startAttacker
    }

    public func run() async throws -> [Phase] {
        try await daemon.waitUntilServing()
        let clock = ContinuousClock()
        try await clock.sleep(for: .seconds(2))
        // Each kind of request warms the daemon (and this process) up first, until the store
        // holds as many used ads as it may keep: the idle baseline then holds the code those
        // requests read in once (5 MB of the binary's own pages, file-backed and clean) and a
        // full store (6 MB: 3 KB an ad), so what "after" adds is memory the load left held
        // beyond the daemon's steady state, not the ads its configuration lets it keep.
        for _ in 0..<10 { _ = await Self.health(daemon.socketPath) }
        let warmUp = try await MixedLoad(socketPath: daemon.socketPath, connections: plan.connections)
            .run(rounds: Self.storedAds / 2)
        // Some fail by design (a tenth, measured): two workers' forced loads that join one load
        // share its ad, and the second show is refused; a privacy change drops the unused ads of
        // another serving mode. More than a quarter would leave the store short of full; so
        // would failed loads, after which a round sends 1 request instead of 5.
        guard warmUp.failures * 4 < warmUp.requests, warmUp.requests >= Self.storedAds * 2 else {
            throw BenchFailure("\(warmUp.failures) of the warm-up's \(warmUp.requests) requests failed")
        }
        try await clock.sleep(for: .seconds(1))
        var phases = [try await phase("idle", for: .seconds(3)) {}]
        let stalling = try await startAttacker(plan.stalled, 0, plan.stalledPhase)
        phases.append(try await phase("stalled connections", for: plan.stalledPhase) {})
        _ = await stalling.exit()
        let streaming = try await startAttacker(0, plan.streams, plan.mixedPhase)
        let mixed = MixedLoad(socketPath: daemon.socketPath, connections: plan.connections)
        let mixedPhase = plan.mixedPhase
        phases.append(
            try await phase("mixed load, stuck streams", for: mixedPhase) { try await mixed.run(for: mixedPhase) })
        _ = await streaming.exit()
        phases.append(try await phase("quiet after", for: plan.quietPhase) {})
        return phases
    }

    /// Runs `work` for `duration` while sampling the daemon every 200 ms and asking for its
    /// health on a fresh connection every 100 ms.
    private func phase(_ name: String, for duration: Duration, _ work: @escaping @Sendable () async throws -> Void)
        async throws -> Phase
    {
        let pid = daemon.pid
        let socketPath = daemon.socketPath
        let clock = ContinuousClock()
        let end = clock.now + duration
        async let sampled: (Int, Int) = {
            var peak = (0, 0)
            while clock.now < end {
                if let now = ProcessFootprint.of(pid) {
                    peak = (max(peak.0, now.residentBytes), max(peak.1, now.openDescriptors))
                }
                try? await clock.sleep(for: .milliseconds(200))
            }
            return peak
        }()
        async let probed: ([Duration], Int) = {
            var latencies: [Duration] = []
            var failures = 0
            while clock.now < end {
                // A probe that fails counts at its timeout: a p99 of the ones answered would
                // hide exactly the clients the flood kept out.
                if let latency = await Self.health(socketPath) {
                    latencies.append(latency)
                } else {
                    failures += 1
                    latencies.append(Self.probeTimeout)
                }
                try? await clock.sleep(for: .milliseconds(100))
            }
            return (latencies.sorted(), failures)
        }()
        try await work()
        let (peak, (latencies, failures)) = await (sampled, probed)
        guard let footprint = ProcessFootprint.of(pid) else { throw BenchFailure("secure-signalsd is gone") }
        return Phase(
            name: name, end: footprint, peakResidentBytes: max(peak.0, footprint.residentBytes),
            peakDescriptors: max(peak.1, footprint.openDescriptors),
            healthP99: latencies.isEmpty ? nil : percentile(latencies, 0.99), healthFailures: failures)
    }

    /// How long a health probe waits for its answer.
    static let probeTimeout = Duration.seconds(5)

    /// `GET /v1/health` on a new connection, answered 200 and closed within `probeTimeout`:
    /// how long it took; nil when it was not.
    static func health(_ socketPath: String) async -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        guard let connection = try? await RawConnection.open(socketPath) else { return nil }
        try? await connection.send("GET \(Endpoints.health.path()) HTTP/1.1\r\nConnection: close\r\n\r\n")
        let answered = await connection.closed(within: probeTimeout) && connection.text.hasPrefix("HTTP/1.1 200")
        let took = clock.now - start
        await connection.close()
        return answered ? took : nil
    }
}
