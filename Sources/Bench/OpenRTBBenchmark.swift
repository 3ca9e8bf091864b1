import Client
import FoundationEssentials
import SharedTypes

/// `secure-signals bench openrtb`: forced native loads of an `openrtb` unit against a local
/// bidder, without and with the daemon's 8 cached signals sealed into each bid request, and
/// the socket's floor (`GET /v1/health`), in alternating slices of the same run
/// (`ForcedNativeLoads`).
public enum OpenRTBBenchmark {
    public static let plainUnit = "/bench/openrtb/native"
    public static let signalsUnit = "/bench/openrtb/native-with-signals"
    /// The `file` adapters `BenchDaemon` configures.
    public static let signalAdapters = (0..<8).map { "bench-\($0)" }

    /// Both units, one line item each at `endpoint`; the second attaches every signal.
    public static func units(endpoint: String) -> [String: Any] {
        func unit(signals: [String]) -> [String: Any] {
            [
                "format": "native",
                "waterfall": [
                    [
                        "network": "openrtb", "parameter": "bench-tag", "timeout_ms": 2000,
                        "options": ["endpoint": endpoint, "timeout_ms": 1000, "signals": signals],
                    ]
                ],
            ]
        }
        return [plainUnit: unit(signals: []), signalsUnit: unit(signals: signalAdapters)]
    }

    /// The rows, after the floor's.
    public static let loads = [(name: "without signals", unit: plainUnit), (name: "with 8 signals", unit: signalsUnit)]
}
