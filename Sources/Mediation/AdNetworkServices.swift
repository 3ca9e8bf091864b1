import CoreMetrics
import SharedTypes

/// What the daemon lends every ad network: its HTTP client, its tracker queue, the ledger its
/// bids are settled in, its metrics, the secure signals of its collector, for networks that
/// attach them to their requests, and the device's advertising id, for the loads that carry it.
public struct AdNetworkServices: Sendable {
    public var fetcher: any AdFetcher
    public var trackers: TrackerQueue
    /// Where every bid is handed over and settled once (its notices go through `trackers`).
    public var bids: BidLedger
    public var signals: (any SignalProvider)?
    /// Where a network counts what it does (the daemon's metrics).
    public var metrics: any MetricsFactory
    /// What a network takes from its servers, at most.
    public var limits: AdContentLimits
    /// The device's advertising id (`advertising_id`): what the store reads for each load whose
    /// app may have it (`AdvertisingID.forLoad`); nil when none is configured.
    public var advertisingIDs: (any AdvertisingIDSource)?
    /// Where every load leaves its trace (the inspector); nil keeps none.
    public var tracer: (any TraceRecorder)?

    public init(
        fetcher: any AdFetcher, trackers: TrackerQueue, signals: (any SignalProvider)? = nil,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance, limits: AdContentLimits = AdContentLimits(),
        bids: BidLedger? = nil, advertisingIDs: (any AdvertisingIDSource)? = nil, tracer: (any TraceRecorder)? = nil
    ) {
        self.advertisingIDs = advertisingIDs
        self.tracer = tracer
        self.bids = bids ?? BidLedger(trackers: trackers)
        self.limits = limits
        self.fetcher = fetcher
        self.trackers = trackers
        self.signals = signals
        self.metrics = metrics
    }
}
