import Consent
import FoundationEssentials
import Inspector
import Logging
import Mediation
import SecureSignals
import SharedTypes
import StateStore
import Synchronization
import Timing

/// What the routes share: the collector, the ad store, and the parts of the configuration a
/// reload may change while connections stay open.
final class DaemonState: Sendable {
    let collector: SignalCollector<AdjustableClock>
    let ads: AdStore<AdjustableClock>
    let logger: Logger
    let startedAt = ContinuousClock.now
    private let currentAccess: Mutex<AccessPolicy>
    private let currentWarnings: Mutex<[String]>
    /// The privacy state in force, changed one change at a time.
    let privacy: PrivacyKeeper
    /// Whether the state database takes commits: what needs one is refused while it does not.
    let stateHealth: StateHealth
    /// When each app last asked.
    let appActivity = AppActivity()
    /// The last loads' and signals requests' traces.
    let inspector: TraceRing

    init(
        collector: SignalCollector<AdjustableClock>, ads: AdStore<AdjustableClock>, access: AccessPolicy,
        warnings: [String] = [], privacy: PrivacySettings = PrivacySettings(),
        stateHealth: StateHealth = StateHealth(), privacyRecords: (any PrivacyRecords)? = nil,
        clock: AdjustableClock, inspector: TraceRing = TraceRing(), logger: Logger
    ) {
        self.inspector = inspector
        self.stateHealth = stateHealth
        self.collector = collector
        self.ads = ads
        self.currentAccess = Mutex(access)
        self.currentWarnings = Mutex(warnings)
        self.privacy = PrivacyKeeper(
            collector: collector, ads: ads, settings: privacy, records: privacyRecords,
            clock: WallClock(clock: clock), logger: logger)
        self.logger = logger
    }

    /// Every adapter: signal adapters, then ad networks.
    func statuses() async -> [AdapterStatus] {
        await collector.statuses() + ads.networkStatuses()
    }

    var access: AccessPolicy {
        get { currentAccess.withLock { $0 } }
        set { currentAccess.withLock { $0 = newValue } }
    }

    /// The running configuration's warnings (`ResolvedConfiguration.warnings`).
    var warnings: [String] {
        get { currentWarnings.withLock { $0 } }
        set { currentWarnings.withLock { $0 = newValue } }
    }
}
