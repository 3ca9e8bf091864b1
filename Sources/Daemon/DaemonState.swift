import Foundation
import Logging
import SecureSignals
import Synchronization

/// What the routes share: the collector, and the parts of the configuration a reload may
/// change while connections stay open.
final class DaemonState: Sendable {
    let collector: SignalCollector
    let logger: Logger
    let startedAt = ContinuousClock.now
    private let currentAccess: Mutex<AccessPolicy>

    init(collector: SignalCollector, access: AccessPolicy, logger: Logger) {
        self.collector = collector
        self.currentAccess = Mutex(access)
        self.logger = logger
    }

    var access: AccessPolicy {
        get { currentAccess.withLock { $0 } }
        set { currentAccess.withLock { $0 = newValue } }
    }
}
