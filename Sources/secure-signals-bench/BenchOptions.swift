import ArgumentParser
import Bench
import FoundationEssentials

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

/// How many traces the benchmarked daemon's inspector keeps: to measure what keeping them costs.
struct InspectorOptions: ParsableArguments {
    @Option(help: "The daemon's inspect.max_traces (0: no trace kept). Default: the daemon's, 500.")
    var inspectMaxTraces: Int?

    func validate() throws {
        guard (0...100_000).contains(inspectMaxTraces ?? 0) else {
            throw ValidationError("--inspect-max-traces must be in [0, 100000]")
        }
    }

    /// The configuration section it sets, if any.
    var configuration: [String: Any] { inspectMaxTraces.map { ["inspect": ["max_traces": $0]] } ?? [:] }
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

/// A row per load: requests, loads/s, p50, p99, and p99 over the first row's (the floor).
func printLoadRows(_ rows: [AdsBenchmark.Row], connections: Int) {
    print("\(connections) connection(s); alternating 0.5 s slices")
    print("request          requests   per s    p50 ms   p99 ms  p99/floor")
    let floor = rows.first.map { Bench.seconds($0.p99) } ?? 1
    for row in rows {
        print(
            row.name.padded(to: 15)
                + printf(
                    " %9ld  %7.0f  %7.3f  %7.3f  %9.2f", row.requests, row.perSecond,
                    Bench.seconds(row.p50) * 1000, Bench.seconds(row.p99) * 1000, Bench.seconds(row.p99) / floor))
    }
}
