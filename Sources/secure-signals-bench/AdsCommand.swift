import ArgumentParser
import Bench
import FoundationEssentials

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
            let server = try await BenchDaemon(daemonBinary: try daemonBinary(load.daemon), adUnits: AdsBenchmark.units)
            {
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
}
