import Client
import FoundationEssentials
import SharedTypes

/// `secure-signals bench openrtb --auction`: four local bidders answering after set delays,
/// asked at once as an ad unit's bidders, against the same four as a sequential waterfall in
/// which the first three answer no bid (so all four are asked), against the slowest bidder
/// alone (what the auction cannot beat), and the socket's floor (`GET /v1/health`), in
/// alternating slices of the same run (`ForcedNativeLoads`).
public enum AuctionBenchmark {
    public static let auctionUnit = "/bench/auction/native"
    public static let waterfallUnit = "/bench/waterfall/native"
    public static let slowestUnit = "/bench/slowest/native"
    /// How long each bidder takes to answer.
    public static let delays = [10, 10, 10, 10]

    public static func units(bidder: LocalBidder) -> [String: Any] {
        func lineItem(_ endpoint: String) -> [String: Any] {
            [
                "network": "openrtb", "parameter": "bench-tag", "timeout_ms": 2000,
                "options": ["endpoint": endpoint, "timeout_ms": 1000],
            ]
        }
        return [
            auctionUnit: [
                "format": "native", "auction": ["timeout_ms": 1000],
                "bidders": delays.map { lineItem(bidder.endpoint(after: $0)) },
            ],
            slowestUnit: [
                "format": "native", "waterfall": [lineItem(bidder.endpoint(after: delays.max() ?? 0))],
            ],
            waterfallUnit: [
                "format": "native",
                "waterfall": delays.enumerated().map { index, delay in
                    lineItem(bidder.endpoint(after: delay, bids: index == delays.count - 1))
                },
            ],
        ]
    }

    /// The rows, after the floor's.
    public static let loads = [
        (name: "slowest alone", unit: slowestUnit), (name: "auction of 4", unit: auctionUnit),
        (name: "waterfall of 4", unit: waterfallUnit),
    ]
}
