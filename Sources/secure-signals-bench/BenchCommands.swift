import ArgumentParser
import Bench
import Foundation

/// `secure-signals bench`, a program of its own so that the client links no server: the
/// benchmarks start local bidders (Hummingbird) and daemons; the CLI runs this program for them.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secure-signals bench",
        abstract: "Measure the daemon's costs (build with -c release).",
        discussion: """
            Run as `secure-signals bench ...` (or this program, secure-signals-bench, directly). \
            Each benchmark reports ratios against a floor measured in the same run; record them in \
            BENCHMARKS.md with the machine and the date.
            """,
        subcommands: [
            HPKE.self, Signals.self, Exec.self, Ads.self, OpenRTB.self, Ledger.self, Soak.self, SoakAttack.self,
            Footprint.self,
        ]
    )

    struct HPKE: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hpke",
            abstract: "Envelope seals/s and opens/s per AEAD, against the bare X25519 floor.",
            discussion: """
                The floor is the X25519 work of one seal: one key generation plus one derive, \
                measured in the same process in alternating rounds. The ratio is seal cost / floor \
                (the median over rounds); the target is at most 1.10 for 64-byte AES-128-GCM. \
                "pooled" is a seal whose ephemeral key comes from a full key pool (the pool is \
                refilled off the clock): what the request path pays with \
                performance.ephemeral_key_pool; the target is at most 0.6 x the floor.
                """
        )

        @Option(help: "Seconds per measurement.")
        var seconds: Double = 0.3

        @Option(help: "Rounds; medians are reported.")
        var rounds: Int = 5

        func validate() throws {
            guard seconds > 0, seconds <= 60 else { throw ValidationError("--seconds must be in (0, 60]") }
            guard rounds >= 1, rounds <= 100 else { throw ValidationError("--rounds must be in [1, 100]") }
        }

        func run() throws {
            let report = try HPKEBenchmark(secondsPerMeasurement: seconds, rounds: rounds).run()
            print(String(format: "X25519 floor (keygen + derive): %.1f µs", report.floorNanoseconds / 1000))
            print(
                "aead               payload  seals/s   opens/s   seal µs  open µs  seal/floor  pooled µs  pooled/floor")
            for row in report.rows {
                print(
                    row.aead.name.padding(toLength: 18, withPad: " ", startingAt: 0)
                        + String(
                            format: " %7d  %8.0f  %8.0f  %7.1f  %7.1f  %10.3f  %9.1f  %12.3f",
                            row.payloadBytes, 1e9 / row.sealNanoseconds,
                            1e9 / row.openNanoseconds, row.sealNanoseconds / 1000, row.openNanoseconds / 1000,
                            row.sealRatio, row.pooledSealNanoseconds / 1000, row.pooledSealRatio))
            }
        }
    }

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

        @Option(help: "The daemon's performance.ephemeral_key_pool (0: every key made during its seal).")
        var ephemeralKeyPool: Int = 64

        func validate() throws {
            guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
            guard !levels.isEmpty, levels.allSatisfy({ (1...256).contains($0) }) else {
                throw ValidationError("--connections must be between 1 and 256")
            }
            // The pool refills once no key has been taken for its quiet period (50 ms).
            guard pacedMs == 0 || (100...10_000).contains(pacedMs) else {
                throw ValidationError("--paced-ms must be 0 (no paced row) or in [100, 10000]")
            }
            guard (0...4096).contains(ephemeralKeyPool) else {
                throw ValidationError("--ephemeral-key-pool must be in [0, 4096]")
            }
        }

        func run() async throws {
            let server = try BenchDaemon(
                daemonBinary: try daemonBinary(daemon),
                extra: ["performance": ["ephemeral_key_pool": ephemeralKeyPool]])
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
                print(
                    String(repeating: " ", count: max(0, 12 - label.count)) + label
                        + String(
                            format: "  %8d  %9.0f  %7.3f  %7.3f  %8.3f  %9.0f%%  %8.3f  %9.2f  %13.2f  %9.2f  %20@",
                            row.requests, row.queriesPerSecond, Bench.seconds(row.p50) * 1000,
                            Bench.seconds(row.p99) * 1000,
                            Bench.seconds(row.p999) * 1000, row.clientCPU * 100, floor * 1000,
                            Bench.seconds(row.p99) / floor,
                            row.queriesPerSecond / (2 / floor), Bench.seconds(row.p50) / floor,
                            row.daemonCPUPerRequest.map { String(format: "%.2f", Bench.seconds($0) / floor) } ?? "-"))
            }
            let paced = report.rows.filter { $0.pause > .zero }
            if let health = paced.first(where: \.health), let signals = paced.first(where: { !$0.health }) {
                let beyond = Bench.seconds(signals.p50 - health.p50)
                print(
                    String(
                        format: "paced: the signals' p50 beyond health's: %.3f ms = %.2f x floor", beyond * 1000,
                        beyond / Bench.seconds(signals.floor)))
            }
        }
    }

    struct Exec: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exec",
            abstract: "The Python example adapter against the built-in file adapter: queries/s and p99.",
            discussion: """
                Starts secure-signalsd (the binary beside this one, or --daemon) with two adapters \
                reading the same 64-byte file, uncached: the built-in `file` adapter and \
                examples/adapters/python/file_signal_adapter.py run as an exec adapter. Then asks \
                each alone, in alternating half-second slices over the same C keep-alive \
                connections, and prints queries/s and p50/p99 for both and their ratios: what a \
                separate process costs per signal. Build with -c release.
                """
        )

        @Option(help: "The adapter program (default: examples/adapters/python/file_signal_adapter.py here).")
        var program = "examples/adapters/python/file_signal_adapter.py"

        @Option(help: "Seconds in all, split evenly between the two adapters.")
        var seconds: Double = 10

        @OptionGroup var load: LoadOptions

        func validate() throws {
            guard seconds >= 1, seconds <= 600 else { throw ValidationError("--seconds must be in [1, 600]") }
        }

        func run() async throws {
            let program = URL(fileURLWithPath: self.program).standardizedFileURL.path
            guard FileManager.default.isExecutableFile(atPath: program) else {
                throw CommandFailure(
                    "\(program) is not an executable program; run from the repository or pass --program")
            }
            let server = try BenchDaemon(
                daemonBinary: try daemonBinary(load.daemon), makeAdapters: ExecBenchmark.adapters(program: program))
            try await server.waitUntilServing()
            let report = try await ExecBenchmark(
                socketPath: server.socketPath, seconds: seconds, connections: load.connections
            ).run()
            print("\(report.connections) connection(s); each adapter asked alone, in alternating 0.5 s slices")
            print("adapter        requests  queries/s   p50 ms   p99 ms")
            for row in [report.builtin, report.program] {
                print(
                    row.adapter.padding(toLength: 13, withPad: " ", startingAt: 0)
                        + String(
                            format: " %9d  %9.0f  %7.3f  %7.3f", row.requests, row.queriesPerSecond,
                            Bench.seconds(row.p50) * 1000, Bench.seconds(row.p99) * 1000))
            }
            print(
                String(
                    format: "program/builtin: queries/s %.2f, p50 %.2f, p99 %.2f",
                    report.program.queriesPerSecond / report.builtin.queriesPerSecond,
                    Bench.seconds(report.program.p50) / Bench.seconds(report.builtin.p50),
                    Bench.seconds(report.program.p99) / Bench.seconds(report.builtin.p99)))
        }
    }
}

extension BenchCommand {
    struct Ads: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ads",
            abstract: "Ads loaded/s and load latency from the test network, against the socket's own floor.",
            discussion: """
                Starts secure-signalsd (the binary beside this one, or --daemon) with the seeds' test \
                native and rewarded units, then sends forced loads (each runs the waterfall and makes a \
                new ad) and, as the floor, GET /v1/health, in alternating half-second slices over the \
                same C keep-alive connections. Prints loads/s, p50 and p99 of each, and each load's p99 \
                over the floor's. Build with -c release.
                """
        )

        @OptionGroup var slices: SliceOptions
        @OptionGroup var load: LoadOptions

        func run() async throws {
            let server = try BenchDaemon(daemonBinary: try daemonBinary(load.daemon), adUnits: AdsBenchmark.units) {
                _ in []
            }
            try await server.waitUntilServing()
            let rows = try await AdsBenchmark(
                socketPath: server.socketPath, seconds: slices.seconds, connections: load.connections
            )
            .run()
            printLoadRows(rows, connections: load.connections)
        }
    }

    struct OpenRTB: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "openrtb",
            abstract:
                "OpenRTB native loads/s and latency against local bidders: with and without signals, or an auction.",
            discussion: """
                Starts a bidder on loopback that answers every bid request with the same native bid, \
                and secure-signalsd (the binary beside this one, or --daemon) with 8 cached file \
                adapters and two openrtb units: one attaches no signals, the other seals all 8 into \
                user.ext.secure_signals. Sends forced loads of each and, as the floor, GET /v1/health, \
                in alternating half-second slices over the same C keep-alive connections. Prints \
                loads/s, p50 and p99 of each, and each p99 over the floor's. Build with -c release.
                """
        )

        @OptionGroup var slices: SliceOptions
        @OptionGroup var load: LoadOptions
        @Flag(
            help: ArgumentHelp(
                "Measure an auction of 4 bidders against the same 4 as a waterfall instead.",
                discussion: """
                    The bidders answer after 10 ms each; in the waterfall the first three answer \
                    no bid, so all four are asked; the slowest bidder is also asked alone. Targets: the \
                    auction's p99 <= the slowest bidder's p99 alone + 2 ms, and <= 0.35 x the \
                    waterfall's p99.
                    """))
        var auction = false

        func run() async throws {
            let bidder = try await LocalBidder()
            if auction { return try await runAuction(bidder) }
            let server = try BenchDaemon(
                daemonBinary: try daemonBinary(load.daemon), adUnits: OpenRTBBenchmark.units(endpoint: bidder.endpoint))
            try await server.waitUntilServing()
            let rows = try await OpenRTBBenchmark(
                socketPath: server.socketPath, seconds: slices.seconds, connections: load.connections
            )
            .run()
            printLoadRows(rows, connections: load.connections)
            if rows.count == 3 {
                print(
                    String(
                        format: "with/without signals: loads/s %.2f, p99 %.2f",
                        rows[2].perSecond / rows[1].perSecond, Bench.seconds(rows[2].p99) / Bench.seconds(rows[1].p99)))
            }
        }
    }
}

extension BenchCommand.OpenRTB {
    private func runAuction(_ bidder: LocalBidder) async throws {
        let server = try BenchDaemon(
            daemonBinary: try daemonBinary(load.daemon), adUnits: AuctionBenchmark.units(bidder: bidder))
        try await server.waitUntilServing()
        let rows = try await AuctionBenchmark(
            socketPath: server.socketPath, seconds: slices.seconds, connections: load.connections
        )
        .run()
        printLoadRows(rows, connections: load.connections)
        guard rows.count == 4 else { return }
        let slowest = Bench.seconds(rows[1].p99)
        let auction = Bench.seconds(rows[2].p99)
        let waterfall = Bench.seconds(rows[3].p99)
        print(
            String(
                format: "auction p99 %.2f ms against the slowest bidder alone %.2f ms + 2 ms: %@",
                auction * 1000, slowest * 1000, auction <= slowest + 0.002 ? "met" : "MISSED"))
        print(
            String(
                format: "auction p99 / waterfall p99: %.2f (target <= 0.35): %@", auction / waterfall,
                auction / waterfall <= 0.35 ? "met" : "MISSED"))
    }
}

extension BenchCommand {
    struct Ledger: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ledger",
            abstract: "Impressions/s and latency with the tracker outbox synced to disk, beside tmpfs and one fsync.",
            discussion: """
                Starts a tracker on loopback and two secure-signalsd (the binary beside this one, or \
                --daemon) alike but for the state directory: one on the disk of the temporary \
                directory, one on /dev/shm. Workers load fresh native ads of the test network \
                (untimed, each on its own unit), then time their impressions, whose tracker \
                pings are committed (synchronous = FULL) before the answer; per s counts the \
                impression phases only. At each --concurrency, alternating half-second slices of: \
                GET /v1/health (the socket's floor), impressions on disk, impressions on tmpfs. \
                Also measures one bare fsync of a 4 KiB write in the disk's state directory. \
                Targets: at C = 1, p50 on disk <= floor + one fsync + 0.3 ms; at C = 8, \
                impressions/s on disk >= 3 / fsync (commits grouped). Build with -c release.
                """)

        @Option(help: "Seconds per concurrency level.")
        var seconds: Double = 6

        @Option(help: "Concurrencies, comma-separated.")
        var concurrency = "1,8"

        @Option(help: "The secure-signalsd binary (default: the one beside this program).")
        var daemon: String?

        func run() async throws {
            let tracker = try await LedgerBenchmark.tracker()
            let levels = concurrency.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            let units = LedgerBenchmark.units(workers: levels.max() ?? 8, tracker: tracker.url("/imp"))
            let binary = try daemonBinary(daemon)
            let disk = try BenchDaemon(daemonBinary: binary, adUnits: units, name: "ledger-disk") { _ in [] }
            let shm = URL(fileURLWithPath: "/dev/shm/secure-signals-ledger-\(getpid())")
            defer { try? FileManager.default.removeItem(at: shm) }
            let tmpfs = try BenchDaemon(
                daemonBinary: binary, adUnits: units, extra: ["state_directory": shm.path], name: "ledger-tmpfs"
            ) { _ in [] }
            try await disk.waitUntilServing()
            try await tmpfs.waitUntilServing()
            let (rows, fsync) = try await LedgerBenchmark(
                disk: disk.socketPath, tmpfs: tmpfs.socketPath,
                stateDirectory: disk.directory.appendingPathComponent("state"), seconds: seconds,
                concurrencies: levels.isEmpty ? [1, 8] : levels
            ).run()
            let fsyncMs = Bench.seconds(fsync) * 1000
            print(String(format: "one fsync (4 KiB) in the disk's state directory: p50 %.3f ms", fsyncMs))
            print("C  arm                 requests   per s    p50 ms   p99 ms")
            for row in rows {
                print(
                    "\(row.concurrency)".padding(toLength: 3, withPad: " ", startingAt: 0)
                        + row.arm.padding(toLength: 19, withPad: " ", startingAt: 0)
                        + String(
                            format: " %8d  %7.0f  %7.3f  %7.3f", row.requests, row.perSecond,
                            Bench.seconds(row.p50) * 1000, Bench.seconds(row.p99) * 1000))
            }
            for level in Set(rows.map(\.concurrency)).sorted() {
                let at = rows.filter { $0.concurrency == level }
                guard at.count == 3 else { continue }
                let floor = Bench.seconds(at[0].p50) * 1000
                let onDisk = Bench.seconds(at[1].p50) * 1000
                print(
                    String(
                        format:
                            "C=%d: disk/tmpfs impressions/s %.2f; disk p50 %.3f ms vs floor + fsync + 0.3 = %.3f ms; disk impressions/s over 1/fsync %.2f",
                        level, at[1].perSecond / at[2].perSecond, onDisk, floor + fsyncMs + 0.3,
                        at[1].perSecond * Bench.seconds(fsync)))
            }
        }
    }
}

/// A row per load: requests, loads/s, p50, p99, and p99 over the first row's (the floor).
private func printLoadRows(_ rows: [AdsBenchmark.Row], connections: Int) {
    print("\(connections) connection(s); alternating 0.5 s slices")
    print("request          requests   per s    p50 ms   p99 ms  p99/floor")
    let floor = rows.first.map { Bench.seconds($0.p99) } ?? 1
    for row in rows {
        print(
            row.name.padding(toLength: 15, withPad: " ", startingAt: 0)
                + String(
                    format: " %9d  %7.0f  %7.3f  %7.3f  %9.2f", row.requests, row.perSecond,
                    Bench.seconds(row.p50) * 1000, Bench.seconds(row.p99) * 1000, Bench.seconds(row.p99) / floor))
    }
}

/// How long a benchmark of a floor and two loads in alternating slices runs.
struct SliceOptions: ParsableArguments {
    @Option(help: "Seconds in all, split evenly between the floor and the two loads.")
    var seconds: Double = 9

    func validate() throws {
        guard seconds >= 1, seconds <= 600 else { throw ValidationError("--seconds must be in [1, 600]") }
    }
}

/// The daemon a benchmark starts, and how many connections drive it.
struct LoadOptions: ParsableArguments {
    @Option(help: "The secure-signalsd binary to start (default: the one beside this program).")
    var daemon: String?

    @Option(name: .customLong("connections"), help: "Concurrent keep-alive connections.")
    var connections: Int = 1

    func validate() throws {
        guard (1...256).contains(connections) else { throw ValidationError("--connections must be in [1, 256]") }
    }
}

/// The daemon binary to benchmark: `given`, or the `secure-signalsd` beside this program.
func daemonBinary(_ given: String?) throws -> String {
    let binary =
        given
        ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("secure-signalsd").path
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        throw CommandFailure("\(binary) is not an executable; build it or pass --daemon")
    }
    return binary
}

/// A one-line failure message for the user.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
