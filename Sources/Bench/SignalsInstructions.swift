import API
import FoundationEssentials
import SharedTypes
import SignalCrypto

/// `secure-signals bench signals --instructions`: the instructions a daemon run under callgrind
/// spends per signals request, in all its threads, over those of the crypto floor (the same
/// seals, counted in a run of this program's `seal-floor`). A count, unlike a time, barely moves
/// with the machine's load: the ratio is the daemon's alone.
@MemberwiseInit
public struct SignalsInstructions {
    public struct Row: Sendable {
        public var connections: Int
        public var requests: Int
        public var instructionsPerRequest: Double
    }

    public var socketPath: String
    /// The daemon's process, started with `callgrind.launcher`.
    public var daemonPID: Int32
    public var callgrind: Callgrind
    public var secondsPerLevel: Double = 5
    public var levels: [Int] = [1, 8]
    public var adapters: Int = 8

    /// A row per level: a second's warm-up on its connections, then `secondsPerLevel` counted.
    public func run() async throws -> [Row] {
        try await warmUp()
        var rows: [Row] = []
        for connections in levels {
            rows.append(
                try await Load.using(socketPath: socketPath, connections: connections) { load in
                    _ = try await load.drive(body: SignalsBenchmark.requestBody, for: .seconds(1))
                    let counted = try await callgrind.instructions(of: daemonPID) {
                        try await load.drive(
                            body: SignalsBenchmark.requestBody, for: .nanoseconds(Int64(secondsPerLevel * 1e9)))
                    }
                    let requests = counted.value.latencies.count
                    guard requests > 0 else {
                        throw BenchFailure("no request was answered at C = \(connections) in \(secondsPerLevel) s")
                    }
                    return Row(
                        connections: connections, requests: requests,
                        instructionsPerRequest: Double(counted.count) / Double(requests))
                })
        }
        return rows
    }

    /// The first requests under valgrind are slow (each path through the daemon is translated
    /// the first time it runs; more so on a busy machine): probes until one answers every
    /// signal, for two minutes at most.
    private func warmUp() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        while true {
            do {
                return try await SignalsBenchmark.probe(socketPath: socketPath, adapters: adapters)
            } catch  where clock.now - start < .seconds(120) {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// The instructions of one round of the floor (`SignalsBenchmark.floorWork`): two runs of
    /// `program seal-floor` under callgrind, of `few` and `few + 200` rounds, whose difference
    /// leaves out what the program does once (its start, its key, its exit).
    public static func floorInstructions(callgrind: Callgrind, program: String, adapters: Int, few: Int = 20)
        async throws -> Double
    {
        func run(_ rounds: Int) async throws -> UInt64 {
            try await callgrind.instructions(
                ofRun: program, ["seal-floor", "--rounds", "\(rounds)", "--adapters", "\(adapters)"])
        }
        let short = try await run(few)
        let long = try await run(few + 200)
        guard long > short else {
            throw BenchFailure("200 more rounds of the floor counted \(long) instructions against \(short)")
        }
        return Double(long - short) / 200
    }

    /// `rounds` rounds of the floor, sealing for a key made now: what `floorInstructions` counts.
    public static func runFloor(rounds: Int, adapters: Int) throws {
        let key = try X25519PrivateKey()
        let sealer = try EnvelopeSealer(keyConfig: KeyConfig(keyID: 1, publicKey: key.publicKey, aeads: [.aes128GCM]))
        let work = try SignalsBenchmark.floorWork(sealer: sealer, adapters: adapters)
        for _ in 0..<rounds { try work() }
    }
}
