import ArgumentParser
import Bench
import FoundationEssentials

extension BenchCommand {
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
            print(printf("X25519 floor (keygen + derive): %.1f µs", report.floorNanoseconds / 1000))
            print(
                "aead               payload  seals/s   opens/s   seal µs  open µs  seal/floor  pooled µs  pooled/floor")
            for row in report.rows {
                print(
                    row.aead.name.padded(to: 18)
                        + printf(
                            " %7ld  %8.0f  %8.0f  %7.1f  %7.1f  %10.3f  %9.1f  %12.3f",
                            row.payloadBytes, 1e9 / row.sealNanoseconds,
                            1e9 / row.openNanoseconds, row.sealNanoseconds / 1000, row.openNanoseconds / 1000,
                            row.sealRatio, row.pooledSealNanoseconds / 1000, row.pooledSealRatio))
            }
        }
    }
}
