import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `secure-signals bench ...` runs `secure-signals-bench ...`, the program beside this one: the
/// benchmarks need servers (local bidders, daemons) that the client itself does not link.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract:
            "Measure the daemon's costs: hpke, signals, exec, ads, openrtb, ledger, soak, footprint (build with -c release).",
        discussion: """
            Runs secure-signals-bench, built beside this program \
            (swift build -c release --product secure-signals-bench), with the same arguments. \
            `secure-signals bench --help` lists the benchmarks; \
            `secure-signals bench signals --help` explains one.
            """
    )

    @Argument(parsing: .captureForPassthrough, help: "The benchmark and its options.")
    var arguments: [String] = []

    func run() throws {
        let program = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("secure-signals-bench").path
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw CommandFailure(
                "\(program) is not there; build it: swift build -c release --product secure-signals-bench")
        }
        let argv = [program] + (arguments.isEmpty ? ["--help"] : arguments)
        var pointers = argv.map { strdup($0) } + [nil]
        execv(program, &pointers)
        throw CommandFailure("cannot run \(program): \(String(cString: strerror(errno)))")
    }
}
