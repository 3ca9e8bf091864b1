import API
import Client
import FoundationEssentials
import SharedTypes

/// `secure-signals bench ads`: native and rewarded loads from the test network over the socket
/// (`force`, so each runs the waterfall and makes a new ad), against the socket's own floor
/// measured in alternating slices of the same run: `GET /v1/health` over the same connections.
@MemberwiseInit
public struct AdsBenchmark {
    public struct Row: Sendable {
        public var name: String
        public var requests: Int
        public var perSecond: Double
        public var p50: Duration
        public var p99: Duration
    }

    public static let nativeUnit = "/21775744923/example/native"
    public static let rewardedUnit = "/6499/example/rewarded"

    /// The daemon's adapters (none: ads only) and ad units.
    public static var units: [String: Any] {
        [
            nativeUnit: [
                "format": "native", "waterfall": [["network": "test", "parameter": nativeUnit]],
            ],
            rewardedUnit: [
                "format": "rewarded", "waterfall": [["network": "test", "parameter": rewardedUnit]],
            ],
        ]
    }

    public var socketPath: String
    public var seconds: Double = 9
    public var connections: Int = 1

    public func run() async throws -> [Row] {
        try await Load.using(socketPath: socketPath, connections: connections) { try await measure($0) }
    }

    private func measure(_ load: Load) async throws -> [Row] {
        try await Self.alternate(
            load, seconds: seconds,
            subjects: [
                ("health (floor)", Endpoints.health.path(), nil),
                (
                    "native load", Endpoints.loadAd.path(),
                    Data(#"{"ad_unit":"\#(Self.nativeUnit)","format":"native","force":true}"#.utf8)
                ),
                (
                    "rewarded load", Endpoints.loadAd.path(),
                    Data(#"{"ad_unit":"\#(Self.rewardedUnit)","format":"rewarded","force":true}"#.utf8)
                ),
            ])
    }

    /// Drives each subject in turn for half a second until `seconds` pass; a row per subject.
    static func alternate(
        _ load: Load, seconds: Double, subjects: [(name: String, path: String, body: Data?)]
    ) async throws -> [Row] {
        var samples = Array(repeating: (latencies: [Duration](), elapsed: Duration.zero), count: subjects.count)
        let slices = max(1, Int((seconds / Double(subjects.count) / 0.5).rounded()))
        for _ in 0..<slices {
            for (index, subject) in subjects.enumerated() {
                let run = try await load.drive(subject.path, body: subject.body, for: .milliseconds(500))
                samples[index].latencies += run.latencies
                samples[index].elapsed += run.elapsed
            }
        }
        return subjects.indices.map { index in
            let sorted = samples[index].latencies.sorted()
            return Row(
                name: subjects[index].name, requests: sorted.count,
                perSecond: Double(sorted.count) / Bench.seconds(samples[index].elapsed),
                p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99))
        }
    }
}
