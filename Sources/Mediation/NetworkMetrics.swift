import Metrics
import SharedTypes
import Synchronization

/// Each ad network's requests, bids, wins and losses, and its latency, counted from the
/// `response_info` of every load: as a waterfall's line item (`kind="line_item"`) and as an
/// auction's bidder (`kind="bidder"`). Label values are configured network names, the outcomes
/// `response_info` defines and OpenRTB's loss reasons: bounded by the configuration.
final class NetworkMetrics: Sendable {
    private let factory: any MetricsFactory
    private let counters = Mutex<[String: Counter]>([:])
    private let timers = Mutex<[String: Timer]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// What one load asked of each network.
    func record(_ info: ResponseInfo) {
        for attempt in info.attempts {
            request(attempt.network, kind: "line_item", outcome: attempt.outcome.rawValue)
            latency(attempt.network, kind: "line_item", milliseconds: attempt.latencyMilliseconds)
        }
        for bid in info.bids ?? [] {
            request(bid.network, kind: "bidder", outcome: bid.outcome.rawValue)
            latency(bid.network, kind: "bidder", milliseconds: bid.latencyMilliseconds)
            if bid.price != nil { count("secure_signals_network_bids_total", [("network", bid.network)]) }
            if bid.outcome == .won { count("secure_signals_network_wins_total", [("network", bid.network)]) }
            if let reason = bid.lossReason {
                count(
                    "secure_signals_network_losses_total", [("network", bid.network), ("reason", "\(reason.rawValue)")])
            }
        }
    }

    private func request(_ network: String, kind: String, outcome: String) {
        count("secure_signals_network_requests_total", [("kind", kind), ("network", network), ("outcome", outcome)])
    }

    private func latency(_ network: String, kind: String, milliseconds: Double) {
        let dimensions = [("kind", kind), ("network", network)]
        AdMetrics.handle(kind + "\u{0}" + network, in: timers) {
            Timer(label: "secure_signals_network_request_seconds", dimensions: dimensions, factory: factory)
        }.recordNanoseconds(Int64(milliseconds * 1_000_000))
    }

    private func count(_ label: String, _ dimensions: [(String, String)]) {
        AdMetrics.handle(([label] + dimensions.map { $0.1 }).joined(separator: "\u{0}"), in: counters) {
            Counter(label: label, dimensions: dimensions, factory: factory)
        }.increment()
    }
}
