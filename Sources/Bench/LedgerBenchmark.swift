import API
import Client
import FoundationEssentials
import Hummingbird
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

/// `secure-signals bench ledger`: impressions whose tracker ping the daemon commits to its state
/// database before it answers, against two daemons alike but for where that database is: the
/// state directory's disk, and tmpfs (no sync costs anything there). Beside them, in the same
/// run, the socket's floor (`GET /v1/health`) and one bare fsync of a 4 KiB write on the disk.
/// Workers load fresh native ads, then time their impressions (loads untimed and never beside a
/// timed call); the arms alternate in half-second slices at each concurrency.
@MemberwiseInit
public struct LedgerBenchmark {
    /// Worker `index`'s unit: each its own, so that no load joins another worker's and no
    /// worker's unused ads push out another's.
    public static func unit(_ index: Int) -> String { "/bench/ledger/native/\(index)" }

    /// A unit per worker, up to `workers`: the test network's native ad, its impression
    /// tracker on `tracker`.
    public static func units(workers: Int, tracker: String) -> [String: Any] {
        var units: [String: Any] = [:]
        for index in 0..<workers {
            units[unit(index)] = [
                "format": "native",
                "waterfall": [
                    [
                        "network": "test", "parameter": AdsBenchmark.nativeUnit,
                        "options": ["impression_tracker": tracker],
                    ]
                ],
            ]
        }
        return units
    }

    /// A tracker on loopback that answers every ping at `/imp` with 204.
    public static func tracker() async throws -> LoopbackServer {
        let router = Router()
        router.get("/imp") { _, _ in Response(status: .noContent) }
        return try await LoopbackServer(router: router, name: "the bench tracker")
    }

    public struct Row: Sendable {
        public var arm: String
        public var concurrency: Int
        public var requests: Int
        public var perSecond: Double
        public var p50: Duration
        public var p99: Duration
    }

    public var disk: String
    public var tmpfs: String
    public var stateDirectory: URL
    public var seconds: Double
    public var concurrencies: [Int]

    /// The rows, arm by arm at each concurrency, and the median of 200 bare fsyncs.
    public func run() async throws -> (rows: [Row], fsync: Duration) {
        let fsync = try Self.fsyncCost(in: stateDirectory)
        var rows: [Row] = []
        for concurrency in concurrencies {
            let arms: [(String, String, Bool)] = [
                ("health (floor)", disk, false), ("impression, disk", disk, true), ("impression, tmpfs", tmpfs, true),
            ]
            var samples = Array(repeating: (latencies: [Duration](), elapsed: Duration.zero), count: arms.count)
            let slices = max(1, Int((seconds / Double(arms.count) / 0.5).rounded()))
            for _ in 0..<slices {
                for (index, arm) in arms.enumerated() {
                    let run = try await Self.drive(
                        socket: arm.1, impressions: arm.2, concurrency: concurrency, for: .milliseconds(500))
                    samples[index].latencies += run.latencies
                    samples[index].elapsed += run.elapsed
                }
            }
            for (index, arm) in arms.enumerated() {
                let sorted = samples[index].latencies.sorted()
                rows.append(
                    Row(
                        arm: arm.0, concurrency: concurrency, requests: sorted.count,
                        perSecond: Double(sorted.count) / Bench.seconds(samples[index].elapsed),
                        p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99)))
            }
        }
        return (rows, fsync)
    }

    /// `concurrency` workers for `duration`. Health: each times checks back to back. Impressions:
    /// rounds of two phases, all workers together, so no load competes with a timed call: each
    /// loads `batch` fresh ads (untimed), then sends their impressions (timed, and only these
    /// phases count toward `elapsed`).
    static func drive(socket: String, impressions: Bool, concurrency: Int, for duration: Duration) async throws
        -> (latencies: [Duration], elapsed: Duration)
    {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        let clients = (0..<concurrency).map { (index: $0, client: DaemonClient(socketPath: socket)) }
        guard impressions else {
            let start = clock.now
            let latencies = try await eachClient(clients) { index, client in
                var latencies: [Duration] = []
                while clock.now < deadline {
                    let began = clock.now
                    _ = try await client.request(.GET, Endpoints.health.path()).successful()
                    latencies.append(clock.now - began)
                }
                return latencies
            }
            return (latencies, clock.now - start)
        }
        var latencies: [Duration] = []
        var elapsed = Duration.zero
        while clock.now < deadline {
            let loaded = try await eachClient(clients) { index, client in
                var ids: [String] = []
                for _ in 0..<batch {
                    var body = AdLoadBody(adUnit: unit(index), format: .native)
                    body.force = true
                    ids.append(try await client.loadAd(body).adID)
                }
                return [(index, ids)]
            }
            let start = clock.now
            let batches = Dictionary(uniqueKeysWithValues: loaded)
            latencies += try await eachClient(clients) { index, client in
                let ids = batches[index] ?? []
                var latencies: [Duration] = []
                for id in ids {
                    let began = clock.now
                    _ = try await client.request(.POST, Endpoints.impression.path(id), json: Data("{}".utf8))
                        .successful()
                    latencies.append(clock.now - began)
                }
                return latencies
            }
            elapsed += clock.now - start
        }
        return (latencies, elapsed)
    }

    /// Ads each worker loads before a timed phase of impressions: all of them kept, since the
    /// daemon keeps a unit's latest 16 unused ads.
    static let batch = 16

    /// `work` once per element, concurrently, its results concatenated in no particular order.
    static func eachClient<Element: Sendable, Result: Sendable>(
        _ elements: [Element], _ work: @escaping @Sendable (Element) async throws -> [Result]
    ) async throws -> [Result] {
        try await withThrowingTaskGroup(of: [Result].self) { group in
            for element in elements { group.addTask { try await work(element) } }
            var all: [Result] = []
            for try await some in group { all += some }
            return all
        }
    }

    /// The median of 200 writes of 4 KiB, each followed by fsync, in `directory`.
    static func fsyncCost(in directory: URL) throws -> Duration {
        let path = directory.appendingPathComponent("fsync-probe").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchFailure("cannot open \(path)") }
        defer {
            close(fd)
            unlink(path)
        }
        let page = [UInt8](repeating: 0x5A, count: 4096)
        let clock = ContinuousClock()
        var times: [Duration] = []
        for _ in 0..<200 {
            let began = clock.now
            guard pwrite(fd, page, page.count, 0) == page.count, Glibc.fsync(fd) == 0 else {
                throw BenchFailure("cannot write and sync \(path)")
            }
            times.append(clock.now - began)
        }
        return percentile(times.sorted(), 0.5)
    }
}
