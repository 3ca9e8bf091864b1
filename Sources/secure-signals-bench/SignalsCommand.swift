import ArgumentParser
import Bench
import FoundationEssentials

extension BenchCommand {
    struct Signals: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signals",
            abstract: "Queries/s and latency of POST /v1/signals with 8 adapters, against the crypto floor.",
            discussion: """
                Starts secure-signalsd (the binary beside this one, or --daemon) on a temporary socket \
                with 8 file adapters whose 64-byte plaintexts stay cached, drives it with C concurrent \
                keep-alive connections (C = 1 and 8), and measures in the same run the crypto floor: \
                the same 8 seals done in-process, one after another, each with a key made then. \
                A last row asks at C = 1 with --paced-ms between requests, as a device does, so \
                that the daemon's ephemeral key pool is full again before each; the row before it \
                asks GET /v1/health the same way, the price of any request after a pause on this \
                machine (threads woken, caches cold). Targets on a \
                2-core machine: at C = 1, p99 <= 1.5 x floor; at C = 8, queries/s >= 0.85 x \
                (2 / floor); paced, p50 < floor. The last column is the daemon's CPU time (all \
                its threads, from /proc) per request over the floor: what the request costs beyond \
                its seals, without the time its threads spend waking up (1.00 would be the seals \
                alone, made inline). Build with -c release.

                With --instructions, the daemon runs under valgrind's callgrind instead (apt-get \
                install valgrind) and each level reports the instructions it ran per request, in \
                all its threads, over the floor's (the same seals, counted in a run of this \
                program): a count a busy machine barely moves, where times do. Target at C = 8: \
                at most 1.35 x floor.
                """
        )

        @Option(help: "The secure-signalsd binary to start (default: the one beside this program).")
        var daemon: String?

        @Option(help: "Seconds per concurrency level.")
        var seconds: Double = 5

        @Option(name: .customLong("connections"), help: "Concurrency levels to measure.")
        var levels: [Int] = [1, 8]

        @Option(help: "The pause between requests of the paced row (C = 1), at least 100; 0 leaves the row out.")
        var pacedMs: Int = 200

        @Option(
            help: """
                The daemon's performance.ephemeral_key_pool (0: every key made during its seal). Default: 64; \
                0 with --instructions, so that each request counts the keys it uses (a pool filled \
                before the count would leave them out) and no idle-priority refill thread holds \
                valgrind's one lock on a busy machine.
                """)
        var ephemeralKeyPool: Int?

        @Flag(help: "Count instructions with valgrind's callgrind instead of measuring times.")
        var instructions = false

        @OptionGroup var inspector: InspectorOptions

        func validate() throws {
            guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
            guard !levels.isEmpty, levels.allSatisfy({ (1...256).contains($0) }) else {
                throw ValidationError("--connections must be between 1 and 256")
            }
            // The pool refills once no key has been taken for its quiet period (50 ms).
            guard pacedMs == 0 || (100...10_000).contains(pacedMs) else {
                throw ValidationError("--paced-ms must be 0 (no paced row) or in [100, 10000]")
            }
            guard (0...4096).contains(ephemeralKeyPool ?? 0) else {
                throw ValidationError("--ephemeral-key-pool must be in [0, 4096]")
            }
        }

        /// The daemon's configuration beyond the bench's own: its key pool and the inspector's bound.
        private func settings(keyPool: Int) -> [String: Any] {
            ["performance": ["ephemeral_key_pool": keyPool]].merging(inspector.configuration) { $1 }
        }

        func run() async throws {
            if instructions { return try await countInstructions() }
            let server = try await BenchDaemon(
                daemonBinary: try daemonBinary(daemon), extra: settings(keyPool: ephemeralKeyPool ?? 64))
            guard let sealer = server.sealer else { throw CommandFailure("the daemon seals for no bench key") }
            try await server.waitUntilServing()
            let report = try await SignalsBenchmark(
                socketPath: server.socketPath, secondsPerLevel: seconds, levels: levels,
                pacedPause: pacedMs > 0 ? .milliseconds(pacedMs) : nil, daemonPID: server.pid
            )
            .run(floorSealer: sealer)
            print("crypto floor: \(report.adapters) seals in-process, one after another, measured around each level")
            print(
                " connections  requests  queries/s   p50 ms   p99 ms  p99.9 ms  client CPU  floor ms  p99/floor  qps/(2/floor)  p50/floor  daemon CPU/req/floor"
            )
            for row in report.rows {
                let floor = Bench.seconds(row.floor)
                let label = row.pause > .zero ? (row.health ? "paced health" : "1 paced") : "\(row.connections)"
                let cpu = row.daemonCPUPerRequest.map { printf("%.2f", Bench.seconds($0) / floor) } ?? "-"
                print(
                    String(repeating: " ", count: max(0, 12 - label.count)) + label
                        + printf(
                            "  %8ld  %9.0f  %7.3f  %7.3f  %8.3f  %9.0f%%  %8.3f  %9.2f  %13.2f  %9.2f  ",
                            row.requests, row.queriesPerSecond, Bench.seconds(row.p50) * 1000,
                            Bench.seconds(row.p99) * 1000,
                            Bench.seconds(row.p999) * 1000, row.clientCPU * 100, floor * 1000,
                            Bench.seconds(row.p99) / floor,
                            row.queriesPerSecond / (2 / floor), Bench.seconds(row.p50) / floor)
                        + String(repeating: " ", count: max(0, 20 - cpu.count)) + cpu)
            }
            let paced = report.rows.filter { $0.pause > .zero }
            if let health = paced.first(where: \.health), let signals = paced.first(where: { !$0.health }) {
                let beyond = Bench.seconds(signals.p50 - health.p50)
                print(
                    printf(
                        "paced: the signals' p50 beyond health's: %.3f ms = %.2f x floor", beyond * 1000,
                        beyond / Bench.seconds(signals.floor)))
            }
        }

        /// `--instructions`: the daemon under callgrind, each level's instructions per request
        /// over the floor's. valgrind's logs and the counts stay in their directory when it fails.
        private func countInstructions() async throws {
            let scratch = try Callgrind.scratchDirectory()
            let (floor, rows): (Double, [SignalsInstructions.Row])
            do {
                (floor, rows) = try await count(in: scratch)
            } catch {
                throw CommandFailure("\(error) (valgrind's logs and the counts are kept in \(scratch.path))")
            }
            try? FileManager.default.removeItem(at: scratch)
            print(printf("crypto floor: 8 seals in-process, one after another: %.0f instructions (callgrind)", floor))
            print(" connections  requests  instructions/req  instructions/req/floor")
            for row in rows {
                print(
                    printf(
                        "  %10ld  %8ld  %16.0f  %22.2f", row.connections, row.requests, row.instructionsPerRequest,
                        row.instructionsPerRequest / floor))
            }
            // Each request makes the floor's seals: less than it means the count did not run.
            if let short = rows.first(where: { $0.instructionsPerRequest < floor }) {
                throw CommandFailure(
                    "at C = \(short.connections) a request counted fewer instructions than its seals: callgrind did not count it all"
                )
            }
        }

        private func count(in scratch: URL) async throws -> (Double, [SignalsInstructions.Row]) {
            let callgrind = try Callgrind(directory: scratch)
            let program = try await callgrind.countable(
                try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            let floor = try await SignalsInstructions.floorInstructions(
                callgrind: callgrind, program: program, adapters: 8)
            let server = try await BenchDaemon(
                daemonBinary: try await callgrind.countable(try daemonBinary(daemon)),
                extra: settings(keyPool: ephemeralKeyPool ?? 0), launcher: callgrind.launcher)
            try await server.waitUntilServing(within: 300)
            let rows = try await SignalsInstructions(
                socketPath: server.socketPath, daemonPID: server.pid, callgrind: callgrind, secondsPerLevel: seconds,
                levels: levels
            ).run()
            await server.stop()
            return (floor, rows)
        }
    }

    /// The crypto floor's rounds, run for `signals --instructions` under callgrind.
    struct SealFloor: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seal-floor",
            abstract: "Runs ROUNDS rounds of the signals crypto floor (for signals --instructions).",
            shouldDisplay: false
        )

        @Option(help: "Rounds of seals.")
        var rounds: Int

        @Option(help: "Seals per round.")
        var adapters: Int = 8

        func validate() throws {
            guard (1...100_000).contains(rounds) else { throw ValidationError("--rounds must be in [1, 100000]") }
            guard (1...64).contains(adapters) else { throw ValidationError("--adapters must be in [1, 64]") }
        }

        func run() throws {
            try SignalsInstructions.runFloor(rounds: rounds, adapters: adapters)
        }
    }
}
