import CoreMetrics
import SharedTypes

/// What the daemon lends every ad network: its HTTP client, its tracker queue, its metrics, and the
/// secure signals of its collector, for networks that attach them to their requests.
public struct AdNetworkServices: Sendable {
    public var fetcher: any AdFetcher
    public var trackers: TrackerQueue
    public var signals: (any SignalProvider)?
    /// Where a network counts what it does (the daemon's metrics).
    public var metrics: any MetricsFactory

    public init(
        fetcher: any AdFetcher, trackers: TrackerQueue, signals: (any SignalProvider)? = nil,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) {
        self.fetcher = fetcher
        self.trackers = trackers
        self.signals = signals
        self.metrics = metrics
    }
}
