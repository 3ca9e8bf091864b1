import Metrics

/// Per-adapter collection latency and outcomes, through the swift-metrics API (the daemon
/// chooses the backend).
enum CollectionMetrics {
    static func record(adapter: String, outcome: String, latency: Duration) {
        Timer(label: "secure_signals_adapter_collection_seconds", dimensions: [("adapter", adapter)])
            .recordNanoseconds(latency.nanoseconds)
        Counter(
            label: "secure_signals_adapter_collections_total", dimensions: [("adapter", adapter), ("outcome", outcome)]
        ).increment()
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
