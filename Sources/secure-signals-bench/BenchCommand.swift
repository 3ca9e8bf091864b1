import ArgumentParser
import Bench
import FoundationEssentials

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
            Footprint.self, SealFloor.self,
        ]
    )
}
