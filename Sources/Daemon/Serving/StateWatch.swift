import Logging
import Mediation
import StateStore
import Synchronization
import Timing

/// While the state database takes no commits (a full disk, a file gone read-only): `check`,
/// run every second by a `PeriodicService`, tries one small write, so that what was refused is
/// taken again as soon as the disk has room; it says so in the log once a minute at most (even
/// when commits come and go) with how much is owed, and once when commits work again. Signals
/// never wait for it.
final class StateWatch: Sendable {
    let database: StateDatabase
    let trackers: TrackerQueue
    let logger: Logger
    private let reports: RateLimitedLog<ContinuousClock>
    /// An outage was logged and its end not yet.
    private let open = Atomic<Bool>(false)

    init(database: StateDatabase, trackers: TrackerQueue, logger: Logger, reportEvery: Duration = .seconds(60)) {
        self.database = database
        self.trackers = trackers
        self.logger = logger
        reports = RateLimitedLog(clock: ContinuousClock(), interval: reportEvery)
    }

    /// One look: while in an outage, logs it unless it was logged within the interval, then
    /// probes; logs the end of an outage it logged.
    func check() async {
        if let outage = database.health.outage {
            if reports.shouldLog("outage") {
                let owed = (try? await trackers.backlog().count).map(String.init) ?? "unknown"
                logger.error(
                    "\(Self.describe(outage)) (logged once a minute at most)",
                    metadata: ["tracker_pings_owed": "\(owed)"])
                open.store(true, ordering: .relaxed)
            }
            await database.probe()
        }
        // Over: by the probe, or by another write that worked first.
        if database.health.isAvailable, open.exchange(false, ordering: .relaxed) {
            logger.notice("the state database takes commits again; refused calls may be retried")
        }
    }

    /// The outage in one line, for the log and `GET /v1/health`.
    static func describe(_ outage: StateHealth.Outage) -> String {
        let seconds = (ContinuousClock.now - outage.since).components.seconds
        return "the state database takes no commits for \(seconds) s (\(outage.reason)): loads, ad events and "
            + "reward claims answer 503 state_unavailable until it does; signals are served"
    }
}
