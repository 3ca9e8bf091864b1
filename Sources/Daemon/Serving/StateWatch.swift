import Logging
import Mediation
import ServiceLifecycle
import StateStore

/// While the state database takes no commits (a full disk, a file gone read-only): tries one
/// small write every `interval`, so that what was refused is taken again as soon as the disk
/// has room, and says so in the log once every `reportEvery` with how much is owed, and once
/// when commits work again. Signals never wait for it.
struct StateWatchService: Service {
    let database: StateDatabase
    let trackers: TrackerQueue
    let logger: Logger
    var interval: Duration = .seconds(1)
    var reportEvery: Duration = .seconds(60)

    /// What was said: when an outage was last logged (kept across recoveries, so that a disk
    /// whose commits come and go is logged once a minute, not once a flap), and whether the
    /// outage said last has not been said to be over.
    struct Reports: Equatable {
        var lastOutage: ContinuousClock.Instant?
        var open = false
    }

    func run() async throws {
        var reports = Reports()
        while (try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }) != nil {
            reports = await check(reports)
        }
    }

    /// One look: while in an outage, logs it unless one was logged within `reportEvery`, then
    /// probes; logs the end of an outage it logged.
    func check(_ reports: Reports) async -> Reports {
        var reports = reports
        if let outage = database.health.outage {
            if reports.lastOutage.map({ ContinuousClock.now - $0 >= reportEvery }) ?? true {
                let owed = (try? trackers.backlog().count).map(String.init) ?? "unknown"
                logger.error(
                    "\(Self.describe(outage)) (logged once a minute at most)",
                    metadata: ["tracker_pings_owed": "\(owed)"])
                reports.lastOutage = .now
                reports.open = true
            }
            await database.probe()
        }
        // Over: by the probe, or by another write that worked first.
        if database.health.isAvailable, reports.open {
            logger.notice("the state database takes commits again; refused calls may be retried")
            reports.open = false
        }
        return reports
    }

    /// The outage in one line, for the log and `GET /v1/health`.
    static func describe(_ outage: StateHealth.Outage) -> String {
        let seconds = (ContinuousClock.now - outage.since).components.seconds
        return "the state database takes no commits for \(seconds) s (\(outage.reason)): loads, ad events and "
            + "reward claims answer 503 state_unavailable until it does; signals are served"
    }
}
