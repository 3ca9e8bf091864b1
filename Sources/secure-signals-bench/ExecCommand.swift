import ArgumentParser
import Bench
import FoundationEssentials

extension BenchCommand {
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
            let server = try await BenchDaemon(
                daemonBinary: try daemonBinary(load.daemon), makeAdapters: ExecBenchmark.adapters(program: program))
            try await server.waitUntilServing()
            let report = try await ExecBenchmark(
                socketPath: server.socketPath, seconds: seconds, connections: load.connections
            ).run()
            print("\(report.connections) connection(s); each adapter asked alone, in alternating 0.5 s slices")
            print("adapter        requests  queries/s   p50 ms   p99 ms")
            for row in [report.builtin, report.program] {
                print(
                    row.adapter.padded(to: 13)
                        + printf(
                            " %9ld  %9.0f  %7.3f  %7.3f", row.requests, row.queriesPerSecond,
                            Bench.seconds(row.p50) * 1000, Bench.seconds(row.p99) * 1000))
            }
            print(
                printf(
                    "program/builtin: queries/s %.2f, p50 %.2f, p99 %.2f",
                    report.program.queriesPerSecond / report.builtin.queriesPerSecond,
                    Bench.seconds(report.program.p50) / Bench.seconds(report.builtin.p50),
                    Bench.seconds(report.program.p99) / Bench.seconds(report.builtin.p99)))
        }
    }
}
