import Consent
import Metrics
import SharedTypes
import Synchronization
import Timing

/// Ad events and load latency, through the swift-metrics API (the daemon picks the backend).
/// Handles are made once per ad unit and event, not per ad.
final class AdMetrics: Sendable {
    private let factory: any MetricsFactory
    private let events = Mutex<[String: Counter]>([:])
    private let loads = Mutex<[String: Timer]>([:])
    private let cappedLoads = Mutex<[String: Counter]>([:])
    private let displacedAds: Counter
    private let servingModes: [ServingMode: Counter]
    private let droppedForPrivacy: Counter
    /// Each network's requests, bids, wins, losses and latency.
    let networks: NetworkMetrics

    init(factory: any MetricsFactory) {
        self.factory = factory
        displacedAds = Counter(label: "secure_signals_ads_displaced_total", factory: factory)
        servingModes = Dictionary(
            uniqueKeysWithValues: ServingMode.allCases.map { mode in
                (
                    mode,
                    Counter(
                        label: "secure_signals_ads_served_total", dimensions: [("serving_mode", mode.rawValue)],
                        factory: factory)
                )
            })
        droppedForPrivacy = Counter(label: "secure_signals_ads_dropped_for_privacy_total", factory: factory)
        networks = NetworkMetrics(factory: factory)
    }

    /// An ad filled under `mode`.
    func served(_ mode: ServingMode) {
        servingModes[mode]?.increment()
    }

    /// Unused ads dropped because a privacy change changed a decision they were loaded under.
    func droppedForPrivacy(_ count: Int) {
        droppedForPrivacy.increment(by: Int64(count))
    }

    /// Unused ads dropped because the store was full (`limits.max_stored_ads`).
    func displaced(_ count: Int) {
        displacedAds.increment(by: Int64(count))
    }

    func count(_ event: AdEvent.Name, unit: String) {
        let key = unit + "\u{0}" + event.rawValue
        Self.handle(key, in: events) {
            Counter(
                label: "secure_signals_ad_events_total", dimensions: [("ad_unit", unit), ("event", event.rawValue)],
                factory: factory)
        }.increment()
    }

    /// A load refused: the unit's frequency caps or pacing allow the app no ad now.
    func capped(unit: String) {
        Self.handle(unit, in: cappedLoads) {
            Counter(label: "secure_signals_ad_loads_capped_total", dimensions: [("ad_unit", unit)], factory: factory)
        }.increment()
    }

    func loaded(unit: String, after latency: Duration) {
        Self.handle(unit, in: loads) {
            Timer(label: "secure_signals_ad_load_seconds", dimensions: [("ad_unit", unit)], factory: factory)
        }.recordNanoseconds(latency.nanoseconds)
    }

    /// The handle kept under `key` in `handles`, made by `make` the first time.
    static func handle<Handle: Sendable>(
        _ key: String, in handles: borrowing Mutex<[String: Handle]>, make: () -> Handle
    ) -> Handle {
        handles.withLock { handles in
            if let handle = handles[key] { return handle }
            let handle = make()
            handles[key] = handle
            return handle
        }
    }
}
