import ArgumentParser
import Bench
import FoundationEssentials
import SharedTypes

extension BenchCommand {
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
        @OptionGroup var inspector: InspectorOptions
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
            let rows = try await measure(
                units: OpenRTBBenchmark.units(endpoint: bidder.endpoint), loads: OpenRTBBenchmark.loads)
            if rows.count == 3 {
                print(
                    printf(
                        "with/without signals: loads/s %.2f, p99 %.2f",
                        rows[2].perSecond / rows[1].perSecond, Bench.seconds(rows[2].p99) / Bench.seconds(rows[1].p99)))
            }
        }
    }
}
extension BenchCommand.OpenRTB {
    /// A daemon serving `units`, and `loads` of them against its floor: the rows, printed.
    private func measure(
        units: [String: Any], loads: [(name: String, unit: String)]
    ) async throws -> [AdsBenchmark.Row] {
        let server = try await BenchDaemon(
            daemonBinary: try daemonBinary(load.daemon), adUnits: units, extra: inspector.configuration)
        try await server.waitUntilServing()
        let rows = try await ForcedNativeLoads(
            socketPath: server.socketPath, seconds: slices.seconds, connections: load.connections, units: loads
        )
        .run()
        printLoadRows(rows, connections: load.connections)
        return rows
    }

    private func runAuction(_ bidder: LocalBidder) async throws {
        let rows = try await measure(units: AuctionBenchmark.units(bidder: bidder), loads: AuctionBenchmark.loads)
        guard rows.count == 4 else { return }
        let slowest = Bench.seconds(rows[1].p99)
        let auction = Bench.seconds(rows[2].p99)
        let waterfall = Bench.seconds(rows[3].p99)
        print(
            printf(
                "auction p99 %.2f ms against the slowest bidder alone %.2f ms + 2 ms: ", auction * 1000, slowest * 1000)
                + (auction <= slowest + 0.002 ? "met" : "MISSED"))
        print(
            printf("auction p99 / waterfall p99: %.2f (target <= 0.35): ", auction / waterfall)
                + (auction / waterfall <= 0.35 ? "met" : "MISSED"))
    }
}
