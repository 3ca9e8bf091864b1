import Client
import FoundationEssentials
import SharedTypes

/// `secure-signals bench exec`: the same signal from a program (the Python example adapter)
/// and from the built-in `file` adapter, both reading one file with no cache, asked in
/// alternating slices of the same run over the same connections, so the ratio shows what a
/// separate process costs.
@MemberwiseInit
public struct ExecBenchmark {
    public struct Row: Sendable {
        public var adapter: String
        public var requests: Int
        public var queriesPerSecond: Double
        public var p50: Duration
        public var p99: Duration
    }

    public struct Report: Sendable {
        public var connections: Int
        public var builtin: Row
        public var program: Row
    }

    public static let builtinName = "builtin-file"
    public static let programName = "python-file"

    /// The daemon's adapters: both read `signal.bin`, 64 bytes, in `directory`.
    public static func adapters(program: String) -> (URL) throws -> [[String: Any]] {
        { directory in
            let file = directory.appendingPathComponent("signal.bin")
            try Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: file)
            return [
                [
                    "name": builtinName, "type": "file", "recipients": ["bench"], "timeout_ms": 1000,
                    "options": ["path": file.path],
                ],
                [
                    "name": programName, "exec": program, "recipients": ["bench"], "timeout_ms": 1000,
                    "circuit_breaker": ["failures": 0], "options": ["path": file.path],
                ],
            ]
        }
    }

    public var socketPath: String
    public var seconds: Double = 10
    public var connections: Int = 1

    public func run() async throws -> Report {
        try await waitUntilBothAnswer()
        return try await Load.using(socketPath: socketPath, connections: connections) { try await measure($0) }
    }

    /// Until the program has initialized, and both adapters answer the same signal.
    private func waitUntilBothAnswer() async throws {
        let client = DaemonClient(socketPath: socketPath)
        var last: CollectionResult?
        for attempt in 0..<200 {
            let result = try await client.collect(requestID: "bench-warmup-\(attempt)")
            if result.errors.isEmpty, result.signals.count == 2 { return }
            last = result
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchFailure("the adapters did not both answer: \(last?.errors.map(\.message) ?? [])")
    }

    private func measure(_ load: Load) async throws -> Report {
        let slice = Duration.milliseconds(500)
        let slices = max(1, Int((seconds / 2 / 0.5).rounded()))
        var samples: [String: (latencies: [Duration], elapsed: Duration)] = [:]
        for _ in 0..<slices {
            for adapter in [Self.builtinName, Self.programName] {
                let body = Data(#"{"request_id":"bench","adapters":["\#(adapter)"]}"#.utf8)
                let run = try await load.drive(body: body, for: slice)
                samples[adapter, default: ([], .zero)].latencies += run.latencies
                samples[adapter, default: ([], .zero)].elapsed += run.elapsed
            }
        }
        func row(_ adapter: String) -> Row {
            let (latencies, elapsed) = samples[adapter] ?? ([], .zero)
            let sorted = latencies.sorted()
            return Row(
                adapter: adapter, requests: sorted.count,
                queriesPerSecond: Double(sorted.count) / Bench.seconds(elapsed),
                p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99))
        }
        return Report(connections: load.connections, builtin: row(Self.builtinName), program: row(Self.programName))
    }
}
