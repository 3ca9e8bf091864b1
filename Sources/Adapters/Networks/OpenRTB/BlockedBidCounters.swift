import CoreMetrics
import Mediation
import SharedTypes

/// `secure_signals_bids_blocked_total{reason}`: bids dropped because an ad unit blocks their
/// advertiser, category or creative attribute (or they name no advertiser where one is required).
struct BlockedBidCounters: Sendable {
    private let counters: [AuctionLossReason: Counter]

    init(factory: any MetricsFactory) {
        let reasons: [(AuctionLossReason, String)] = [
            (.advertiserExcluded, "advertiser"), (.appExcluded, "app"), (.categoryExcluded, "category"),
            (.creativeAttributeExcluded, "creative_attribute"),
        ]
        counters = Dictionary(
            uniqueKeysWithValues: reasons.map { reason, name in
                (
                    reason,
                    Counter(
                        label: "secure_signals_bids_blocked_total", dimensions: [("reason", name)], factory: factory)
                )
            })
    }

    func count(_ reason: AuctionLossReason) { counters[reason]?.increment() }
}
