import ArgumentParser
import Bench
import FoundationEssentials
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

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
            let levels = concurrency.split(separator: ",").compactMap { Int($0.trimmingWhitespace) }
            let units = LedgerBenchmark.units(workers: levels.max() ?? 8, tracker: tracker.url("/imp"))
            let binary = try daemonBinary(daemon)
            let disk = try await BenchDaemon(daemonBinary: binary, adUnits: units, name: "ledger-disk") { _ in [] }
            let shm = URL(fileURLWithPath: "/dev/shm/secure-signals-ledger-\(getpid())")
            defer { try? FileManager.default.removeItem(at: shm) }
            let tmpfs = try await BenchDaemon(
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
            print(printf("one fsync (4 KiB) in the disk's state directory: p50 %.3f ms", fsyncMs))
            print("C  arm                 requests   per s    p50 ms   p99 ms")
            for row in rows {
                print(
                    "\(row.concurrency)".padded(to: 3)
                        + row.arm.padded(to: 19)
                        + printf(
                            " %8ld  %7.0f  %7.3f  %7.3f", row.requests, row.perSecond,
                            Bench.seconds(row.p50) * 1000, Bench.seconds(row.p99) * 1000))
            }
            for level in Set(rows.map(\.concurrency)).sorted() {
                let at = rows.filter { $0.concurrency == level }
                guard at.count == 3 else { continue }
                let floor = Bench.seconds(at[0].p50) * 1000
                let onDisk = Bench.seconds(at[1].p50) * 1000
                print(
                    printf(
                        "C=%ld: disk/tmpfs impressions/s %.2f; disk p50 %.3f ms vs floor + fsync + 0.3 = %.3f ms; disk impressions/s over 1/fsync %.2f",
                        level, at[1].perSecond / at[2].perSecond, onDisk, floor + fsyncMs + 0.3,
                        at[1].perSecond * Bench.seconds(fsync)))
            }
        }
    }
}
