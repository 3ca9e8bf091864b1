import Foundation
import Logging
import Mediation
import SecureSignals
import SharedTypes
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

    init(
        collector: SignalCollector<AdjustableClock>, ads: AdStore<AdjustableClock>, access: AccessPolicy, logger: Logger
    ) {
        self.collector = collector
        self.ads = ads
        self.currentAccess = Mutex(access)
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
}
