import SecureSignals

/// What the daemon lends every ad network: its HTTP client, its tracker queue, and its
/// signal collector, for networks that attach secure signals to their requests.
public struct AdNetworkServices: Sendable {
    public var fetcher: any AdFetcher
    public var trackers: TrackerQueue
    public var signals: SignalCollector?

    public init(fetcher: any AdFetcher, trackers: TrackerQueue, signals: SignalCollector? = nil) {
        self.fetcher = fetcher
        self.trackers = trackers
        self.signals = signals
    }
}
