import ArgumentParser
import Bench
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

extension BenchCommand {
    struct Soak: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "soak",
            abstract: "The daemon's memory, descriptors and health under hostile clients, then quiet.",
            discussion: """
                Starts secure-signalsd (the binary beside this one, or --daemon) with 8 cached file \
                adapters and the test ad units, warms it up with each kind of request until its store holds the 2000 \
                used ads it may keep (the steady state "after" is measured against), then \
                runs four phases: idle; --stalled connections that \
                send half a request and stall (reopened as the daemon closes them); --streams \
                event-stream clients that never read, while C connections send mixed load (signals, \
                forced native and rewarded loads with their lifecycle, privacy changes); quiet. The \
                stalled and streaming clients are a second process, run as uid 65534 when this runs as \
                root (setpriv), so that per-peer limits keep them apart from the health probes. \
                Prints resident memory and open descriptors (end of phase and peak) and the p99 of \
                GET /v1/health on a fresh connection (a probe that fails counts as its 5 s timeout), \
                against the idle p99; then the targets: peak RSS \
                <= 128 MB, RSS after <= idle + 10 MB, descriptors after <= idle + 8, health p99 while \
                stalled <= 100 ms. --check exits 1 when a memory or descriptor target is missed (the \
                health target is reported: on a 2-core machine the attacker's own work competes with \
                the daemon; --attacker-cpus pins it). Build with -c release.
                """
        )

        @Option(help: "Stalled connections the attacker keeps open.") var stalled = 2000
        @Option(help: "Event-stream clients that never read.") var streams = 200
        @Option(help: "Seconds of the stalled-connections phase.") var stalledSeconds = 15.0
        @Option(help: "Seconds of mixed load.") var mixedSeconds = 90.0
        @Option(help: "Seconds of quiet after.") var quietSeconds = 30.0
        @Flag(help: "Exit 1 when a memory or descriptor target is missed.") var check = false
        @Option(
            name: .customLong("daemon-env"),
            help: "NAME=VALUE set for the daemon (repeatable): MALLOC_ARENA_MAX=2, SECURE_SIGNALS_MALLOC_TRIM_S=0 ...")
        var daemonEnvironment: [String] = []
        @Option(
            name: .customLong("attacker-cpus"),
            help: ArgumentHelp(
                "Run the attacker on these CPUs only (taskset -c LIST, e.g. 1).",
                discussion: "On a small machine the attacker's own work otherwise competes with the daemon's."))
        var attackerCPUs: String?
        @OptionGroup var load: LoadOptions

        func validate() throws {
            for (name, value) in [
                ("--stalled-seconds", stalledSeconds), ("--mixed-seconds", mixedSeconds),
                ("--quiet-seconds", quietSeconds),
            ] where !(1...3600).contains(value) {
                throw ValidationError("\(name) must be in [1, 3600]")
            }
            guard (0...20_000).contains(stalled), (0...2000).contains(streams) else {
                throw ValidationError("--stalled must be in [0, 20000] and --streams in [0, 2000]")
            }
        }

        func run() async throws {
            var plan = SoakBenchmark.Plan()
            plan.stalled = stalled
            plan.streams = streams
            plan.stalledPhase = .milliseconds(Int(stalledSeconds * 1000))
            plan.mixedPhase = .milliseconds(Int(mixedSeconds * 1000))
            plan.quietPhase = .milliseconds(Int(quietSeconds * 1000))
            plan.connections = load.connections == 1 ? 8 : load.connections
            var environment: [String: String] = [:]
            for pair in daemonEnvironment {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ValidationError("--daemon-env takes NAME=VALUE, not \(pair)") }
                environment[parts[0]] = parts[1]
            }
            let daemon = try await SoakBenchmark.daemon(binary: try daemonBinary(load.daemon), environment: environment)
            let socketPath = daemon.socketPath
            let asAnother = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            if !asAnother { print("note: not root, so the attacker runs as this uid and shares its per-peer limits") }
            let phases = try await SoakBenchmark(daemon: daemon, plan: plan) { stalled, streams, duration in
                try await Self.attacker(
                    socketPath, stalled: stalled, streams: streams, duration: duration, asAnother: asAnother,
                    cpus: attackerCPUs)
            }.run()
            let missed = report(phases)
            if check && !missed.isEmpty { throw ExitCode(1) }
        }

        /// Starts this program's `soak-attacker` (as uid 65534 when `asAnother`, on `cpus` when given).
        static func attacker(
            _ socket: String, stalled: Int, streams: Int, duration: Duration, asAnother: Bool, cpus: String?
        ) async throws -> ChildProcess {
            let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let command = [
                me, "soak-attacker", "--socket", socket, "--stalled", "\(stalled)", "--streams", "\(streams)",
                "--seconds", "\(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)",
            ]
            var line =
                asAnother
                ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command : command
            if let cpus { line = ["/usr/bin/taskset", "-c", cpus] + line }
            return try await ChildProcess.start(
                line[0], Array(line.dropFirst()), standardOutput: .inherited, standardError: .inherited)
        }

        /// Prints the phases and the targets; returns the targets missed.
        private func report(_ phases: [SoakBenchmark.Phase]) -> [String] {
            print("phase                        RSS MB  peak MB   fds  peak fds  health p99 ms  p99/idle  failed")
            let idleP99 = phases.first?.healthP99.map(Bench.seconds)
            for phase in phases {
                let p99 = phase.healthP99.map(Bench.seconds)
                let p99Text = p99.map { printf("%.2f", $0 * 1000) } ?? "-"
                let ratio = p99.flatMap { value in idleP99.map { printf("%.2f", value / $0) } } ?? "-"
                print(
                    phase.name.padded(to: 27)
                        + printf(
                            " %7.1f  %7.1f  %4ld  %8ld  ", phase.end.residentMegabytes,
                            Double(phase.peakResidentBytes) / 1_048_576, phase.end.openDescriptors,
                            phase.peakDescriptors)
                        + String(repeating: " ", count: max(0, 13 - p99Text.count)) + p99Text + "  "
                        + String(repeating: " ", count: max(0, 8 - ratio.count)) + ratio
                        + printf("  %6ld", phase.healthFailures))
            }
            guard let idle = phases.first, let after = phases.last, phases.count == 4 else { return ["phases"] }
            let peak = phases.map(\.peakResidentBytes).max() ?? 0
            let stalledP99 = phases[1].healthP99.map(Bench.seconds) ?? .infinity
            // The first three are checked by --check; the last is reported.
            let targets: [(String, Bool, String)] = [
                ("peak RSS <= 128 MB", peak <= 128 << 20, printf("%.1f MB", Double(peak) / 1_048_576)),
                (
                    "RSS after <= idle + 10 MB", after.end.residentBytes <= idle.end.residentBytes + 10 << 20,
                    printf("%+.1f MB", after.end.residentMegabytes - idle.end.residentMegabytes)
                ),
                (
                    "fds after <= idle + 8", after.end.openDescriptors <= idle.end.openDescriptors + 8,
                    "\(after.end.openDescriptors - idle.end.openDescriptors) more"
                ),
                (
                    "health p99 while stalled <= 100 ms", stalledP99 <= 0.1,
                    printf("%.2f ms", stalledP99 * 1000)
                ),
            ]
            for (name, met, value) in targets { print("\(met ? "met   " : "MISSED") \(name): \(value)") }
            return targets.dropLast().filter { !$0.1 }.map(\.0)
        }
    }

    /// The hostile clients of `soak`, as a process of their own.
    struct SoakAttack: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "soak-attacker", abstract: "The stalled and stuck clients of `soak` (run by it).",
            shouldDisplay: false)

        @Option var socket: String
        @Option var stalled = 0
        @Option var streams = 0
        @Option var seconds = 10.0

        func run() async throws {
            _ = await SoakAttacker(
                socketPath: socket, stalled: stalled, streams: streams, duration: .milliseconds(Int(seconds * 1000))
            ).run()
        }
    }
}
