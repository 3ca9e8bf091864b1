import API
import Client
import FoundationEssentials
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

/// `secure-signals bench footprint`: what the daemon costs a device. For each configuration,
/// the time from starting the process to READY=1 on a notify socket, against the time the same
/// binary takes to start and exit (`--version`: loading, relocation, the runtime); then its
/// memory, descriptors and threads idle, and again after a number of signal requests and ad
/// loads. Each daemon starts with its binary out of the page cache, as at boot.
@MemberwiseInit
public struct FootprintBenchmark {
    public enum Configuration: String, CaseIterable, Sendable {
        /// No `--config`: the demo key, the three built-in adapters, the seeds' test ad units.
        case embeddedDefault = "embedded default"
        /// 8 cached `file` adapters and the test ad units.
        case eightAdapters = "8 adapters + ad units"
    }

    public struct Run: Sendable {
        public var configuration: Configuration
        public var startToReady: Duration
        /// `secure-signalsd --version`, started and exited: the start no daemon code is in.
        public var startToExit: Duration
        public var idle: ProcessMemory
        public var after: ProcessMemory
        /// Requests sent by the load and those answered other than 2xx.
        public var requests: Int
        public var failures: Int
        /// The CPU the daemon used while left alone for `idleWindow` after the load, in clock
        /// ticks (1/100 s, as /proc/PID/stat counts them).
        public var idleTicks: Int
    }

    public var daemonBinary: String
    public var signalRequests: Int = 10_000
    public var adLoads: Int = 10_000
    public var connections: Int = 4
    /// How long the daemon is left alone before each measurement.
    public var settle: Duration = .seconds(2)
    /// How long the daemon's idle CPU is counted, after the load (its timers are armed then).
    public var idleWindow: Duration = .seconds(10)
    /// The 8-adapter daemon's `inspect.max_traces`; nil: its default.
    public var inspectMaxTraces: Int? = nil

    public func run(_ configuration: Configuration) async throws -> Run {
        // A binary just built sits dirty in the page cache until written back, and smaps counts
        // those pages as the process's private dirty memory: write them back first.
        sync()
        let startToExit = try await Self.startToExit(daemonBinary)
        try Self.evictFromPageCache(daemonBinary)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "secure-signals-notify-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notify = try NotifyListener(path: directory.appendingPathComponent("notify.sock").path)
        let environment = ["NOTIFY_SOCKET": notify.path]
        let daemon =
            switch configuration {
            case .embeddedDefault:
                try await BenchDaemon(
                    embeddedDefaultOf: daemonBinary, environment: environment, name: "footprint-default")
            case .eightAdapters:
                try await BenchDaemon(
                    daemonBinary: daemonBinary, adUnits: AdsBenchmark.units,
                    extra: inspectMaxTraces.map { ["inspect": ["max_traces": $0]] } ?? [:], environment: environment,
                    name: "footprint-adapters")
            }
        guard await notify.wait(timeout: .seconds(30), every: .milliseconds(1), for: { $0.contains("READY=1") }) != nil,
            let ready = notify.arrivals.last
        else { throw BenchFailure("secure-signalsd sent no READY=1 within 30 s") }
        let startToReady = ready - daemon.startedAt

        try await ContinuousClock().sleep(for: settle)
        guard let idle = ProcessMemory.of(daemon.pid) else { throw BenchFailure("secure-signalsd exited") }
        let (requests, failures) = try await load(daemon.socketPath)
        try await ContinuousClock().sleep(for: settle)
        guard let after = ProcessMemory.of(daemon.pid), let busy = ProcessFootprint.of(daemon.pid)?.cpuSeconds else {
            throw BenchFailure("secure-signalsd exited")
        }
        try await ContinuousClock().sleep(for: idleWindow)
        guard let rested = ProcessFootprint.of(daemon.pid)?.cpuSeconds else {
            throw BenchFailure("secure-signalsd exited")
        }
        return Run(
            configuration: configuration, startToReady: startToReady, startToExit: startToExit, idle: idle,
            after: after, requests: requests, failures: failures, idleTicks: Int(((rested - busy) * 100).rounded()))
    }

    /// The signal requests, then the ad loads (native and rewarded in turn, `force`d so that
    /// each runs the waterfall and stores a new ad), over `connections` keep-alive connections.
    private func load(_ socketPath: String) async throws -> (requests: Int, failures: Int) {
        let native = Data(#"{"ad_unit":"\#(AdsBenchmark.nativeUnit)","format":"native","force":true}"#.utf8)
        let rewarded = Data(#"{"ad_unit":"\#(AdsBenchmark.rewardedUnit)","format":"rewarded","force":true}"#.utf8)
        let (signalRequests, adLoads, connections) = (signalRequests, adLoads, connections)
        return try await Load.using(socketPath: socketPath, connections: connections) { load in
            var failures = 0
            for (path, count) in [(Endpoints.signals.path(), signalRequests), (Endpoints.loadAd.path(), adLoads)] {
                failures += try await withThrowingTaskGroup(of: Int.self) { group in
                    for worker in 0..<connections {
                        group.addTask {
                            var failed = 0
                            for index in stride(from: worker, to: count, by: connections) {
                                let body =
                                    path == Endpoints.loadAd.path()
                                    ? (index % 2 == 0 ? native : rewarded)
                                    : Data(#"{"request_id":"footprint-\#(index)"}"#.utf8)
                                let reply = try await load.client.request(.POST, path, json: body)
                                if !(200..<300).contains(reply.status) { failed += 1 }
                            }
                            return failed
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            return (signalRequests + adLoads, failures)
        }
    }

    /// Drops `binary`'s pages from the page cache, so that the daemon starts as at boot, its code
    /// read from the disk as it runs: what the kernel maps around each page the daemon touches
    /// (and so its PSS) depends on which pages the cache holds, which the runs before would
    /// otherwise decide.
    private static func evictFromPageCache(_ binary: String) throws {
        let descriptor = open(binary, O_RDONLY)
        guard descriptor >= 0 else { throw BenchFailure("\(binary): cannot be opened (errno \(errno))") }
        defer { close(descriptor) }
        let result = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
        guard result == 0 else { throw BenchFailure("\(binary): posix_fadvise failed (errno \(result))") }
    }

    /// The median of five starts and exits of `binary --version`, each from out of the page
    /// cache, as the daemon's start is timed.
    private static func startToExit(_ binary: String) async throws -> Duration {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for _ in 0..<5 {
            try evictFromPageCache(binary)
            let start = clock.now
            _ = try await ChildProcess.run(binary, ["--version"])
            times.append(clock.now - start)
        }
        return times.sorted()[times.count / 2]
    }
}
