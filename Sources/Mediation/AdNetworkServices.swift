import SharedTypes

/// What the daemon lends every ad network: its HTTP client, its tracker queue, and the
/// secure signals of its collector, for networks that attach them to their requests.
public struct AdNetworkServices: Sendable {
    public var fetcher: any AdFetcher
    public var trackers: TrackerQueue
    public var signals: (any SignalProvider)?

    public init(fetcher: any AdFetcher, trackers: TrackerQueue, signals: (any SignalProvider)? = nil) {
        self.fetcher = fetcher
        self.trackers = trackers
        self.signals = signals
    }
}
