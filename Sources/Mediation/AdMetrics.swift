import Consent
import Metrics
import Synchronization
import Timing

/// Ad events and load latency, through the swift-metrics API (the daemon picks the backend).
/// Handles are made once per ad unit and event, not per ad.
final class AdMetrics: Sendable {
    private let factory: any MetricsFactory
    private let events = Mutex<[String: Counter]>([:])
    private let loads = Mutex<[String: Timer]>([:])
    private let displacedAds: Counter
    private let servingModes: [ServingMode: Counter]
    private let droppedForPrivacy: Counter

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
        let counter = events.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "secure_signals_ad_events_total", dimensions: [("ad_unit", unit), ("event", event.rawValue)],
                factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    func loaded(unit: String, after latency: Duration) {
        let timer = loads.withLock { timers in
            if let timer = timers[unit] { return timer }
            let timer = Timer(
                label: "secure_signals_ad_load_seconds", dimensions: [("ad_unit", unit)], factory: factory)
            timers[unit] = timer
            return timer
        }
        timer.recordNanoseconds(latency.nanoseconds)
    }
}
