import ArgumentParser
import Bench
import FoundationEssentials
import SharedTypes

extension BenchCommand {
    struct Footprint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "footprint",
            abstract: "What the daemon costs a device: start to ready, memory, descriptors, threads, size.",
            discussion: """
                Starts secure-signalsd (the binary beside this one, or --daemon) on the embedded \
                default and on 8 cached file adapters with the test ad units, --rounds times each. \
                Per run: the time from starting the process (its binary dropped from the page cache \
                first, as at boot) to READY=1 on a notify socket, against the same binary's start \
                and exit with --version (the start no daemon code is in); \
                then, idle and after --signals signal requests and --ads forced ad loads: RSS, PSS, \
                private dirty memory (/proc/PID/smaps_rollup), open descriptors and threads; then \
                the CPU it uses left alone for --idle-seconds (clock ticks of 10 ms). Then the \
                binary's size. Targets: PSS idle <= 20 MiB; private dirty <= 8 MiB idle and <= 16 \
                MiB after; start to ready <= 100 ms; idle CPU <= 1 tick per 10 s; the stripped \
                daemon <= 25 MiB (give \
                --daemon build/bin/secure-signalsd, which `make` strips). --check exits 1 when a \
                target is missed. Build with -c release.
                """
        )

        @Option(help: "Signal requests in the load.") var signals = 10_000
        @Option(help: "Ad loads in the load (native and rewarded in turn).") var ads = 10_000
        @Option(help: "Runs of each configuration; each is printed.") var rounds = 3
        @Option(help: "Seconds the daemon is left alone before each measurement.") var settleSeconds = 2.0
        @Flag(help: "Exit 1 when a target is missed.") var check = false
        @Option(help: "The secure-signalsd binary to start (default: the one beside this program).")
        var daemon: String?
        @Option(help: "Concurrent keep-alive connections of the load.") var connections = 4
        @Option(help: "Seconds the daemon's idle CPU is counted, after the load.") var idleSeconds = 10.0
        @OptionGroup var inspector: InspectorOptions

        func validate() throws {
            guard (0...1_000_000).contains(signals), (0...1_000_000).contains(ads) else {
                throw ValidationError("--signals and --ads must be in [0, 1000000]")
            }
            guard (1...20).contains(rounds) else { throw ValidationError("--rounds must be in [1, 20]") }
            guard (1...256).contains(connections) else { throw ValidationError("--connections must be in [1, 256]") }
            guard (0...60).contains(settleSeconds) else { throw ValidationError("--settle-seconds must be in [0, 60]") }
            guard (1...600).contains(idleSeconds) else { throw ValidationError("--idle-seconds must be in [1, 600]") }
        }

        func run() async throws {
            let binary = try daemonBinary(daemon)
            let benchmark = FootprintBenchmark(
                daemonBinary: binary, signalRequests: signals, adLoads: ads,
                connections: connections,
                settle: .milliseconds(Int(settleSeconds * 1000)), idleWindow: .milliseconds(Int(idleSeconds * 1000)),
                inspectMaxTraces: inspector.inspectMaxTraces)
            print(
                "load: \(signals) signal requests, then \(ads) forced ad loads, on \(benchmark.connections) connections"
            )
            print(
                "configuration            ready ms  exit ms  ready/exit  | idle: RSS MiB  PSS MiB  dirty MiB  fds  thr"
                    + "  | after: RSS MiB  PSS MiB  dirty MiB  fds  thr  | non-2xx  | idle ticks")
            var runs: [FootprintBenchmark.Run] = []
            for configuration in FootprintBenchmark.Configuration.allCases {
                for _ in 0..<rounds {
                    let run = try await benchmark.run(configuration)
                    runs.append(run)
                    print(Self.line(run))
                }
            }
            let size = FileManager.default.sizeOfItem(atPath: binary) ?? 0
            print("binary: \(binary), " + printf("%.1f MiB", Double(size) / 1_048_576))

            let worst = { (value: (FootprintBenchmark.Run) -> Int) in runs.map(value).max() ?? 0 }
            let targets: [(String, Bool, String)] = [
                (
                    "PSS idle <= 20 MiB", worst(\.idle.proportionalBytes) <= 20 << 20,
                    Self.mb(worst(\.idle.proportionalBytes))
                ),
                (
                    "private dirty idle <= 8 MiB", worst(\.idle.privateDirtyBytes) <= 8 << 20,
                    Self.mb(worst(\.idle.privateDirtyBytes))
                ),
                (
                    "private dirty after <= 16 MiB", worst(\.after.privateDirtyBytes) <= 16 << 20,
                    Self.mb(worst(\.after.privateDirtyBytes))
                ),
                (
                    "start to ready <= 100 ms", runs.allSatisfy { $0.startToReady <= .milliseconds(100) },
                    printf("%.1f ms", (runs.map { Bench.seconds($0.startToReady) }.max() ?? 0) * 1000)
                ),
                (
                    // Per 10 s of the window, rounded up: a tick of a longer window is not a miss.
                    "idle CPU <= 1 tick per 10 s",
                    Double(worst(\.idleTicks)) <= (idleSeconds / 10).rounded(.up),
                    printf("%ld ticks in %.0f s", worst(\.idleTicks), idleSeconds)
                ),
                ("daemon binary <= 25 MiB", size <= 25 << 20, Self.mb(size)),
            ]
            print("targets (the worst run):")
            for (name, met, value) in targets { print("  \(met ? "met   " : "MISSED") \(name): \(value)") }
            if check, targets.contains(where: { !$0.1 }) { throw ExitCode(1) }
        }

        static func mb(_ bytes: Int) -> String { printf("%.1f MiB", Double(bytes) / 1_048_576) }

        static func line(_ run: FootprintBenchmark.Run) -> String {
            func memory(_ sample: ProcessMemory) -> String {
                printf(
                    "%8.1f  %7.1f  %9.1f  %3ld  %3ld", Double(sample.residentBytes) / 1_048_576,
                    Double(sample.proportionalBytes) / 1_048_576, Double(sample.privateDirtyBytes) / 1_048_576,
                    sample.descriptors, sample.threads)
            }
            let ready = Bench.seconds(run.startToReady) * 1000
            let exit = Bench.seconds(run.startToExit) * 1000
            return run.configuration.rawValue.padded(to: 23)
                + printf("  %8.1f  %7.1f  %10.2f", ready, exit, ready / exit)
                + "  |      \(memory(run.idle))  |       \(memory(run.after))  | \(run.failures)/\(run.requests)"
                + "  | \(run.idleTicks)"
        }
    }
}
