import Consent
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
    private let currentWarnings: Mutex<[String]>
    private let minimumTCFPolicyVersion: Mutex<Int>

    init(
        collector: SignalCollector<AdjustableClock>, ads: AdStore<AdjustableClock>, access: AccessPolicy,
        warnings: [String] = [], minimumTCFPolicyVersion: Int = ConsentPolicy.defaultMinimumTCFPolicyVersion,
        logger: Logger
    ) {
        self.collector = collector
        self.ads = ads
        self.currentAccess = Mutex(access)
        self.currentWarnings = Mutex(warnings)
        self.minimumTCFPolicyVersion = Mutex(minimumTCFPolicyVersion)
        self.logger = logger
    }

    /// Puts `privacy` in force (nil: none, no consent): its strings decoded and its decisions
    /// made once, for the collector and the ad store alike. A string that cannot be decoded
    /// throws, and the state in force stays.
    func setPrivacy(_ privacy: PrivacyState?) async throws(ConsentStringError) {
        let policy = try ConsentPolicy(privacy, minimumTCFPolicyVersion: minimumTCFPolicyVersion.withLock { $0 })
        await collector.setPrivacy(policy)
        await ads.setPrivacy(policy)
    }

    /// A reload's `privacy.min_tcf_policy_version`: the state in force is judged again by it.
    func setMinimumTCFPolicyVersion(_ version: Int) async {
        guard minimumTCFPolicyVersion.withLock({ $0 }) != version else { return }
        minimumTCFPolicyVersion.withLock { $0 = version }
        try? await setPrivacy(await collector.privacyState)
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
