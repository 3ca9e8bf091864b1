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

    func run() async throws {
        var reported: ContinuousClock.Instant?
        while (try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }) != nil {
            reported = await check(reported: reported)
        }
    }

    /// One look: while in an outage, logs it when `reported` is older than `reportEvery` (or
    /// nil), then probes, and logs its end. Returns when the outage was last reported (nil: none).
    func check(reported: ContinuousClock.Instant?) async -> ContinuousClock.Instant? {
        guard let outage = database.health.outage else {
            // Another write found it working before the probe did.
            if reported != nil { logger.notice("the state database takes commits again; refused calls may be retried") }
            return nil
        }
        var reported = reported
        if reported.map({ ContinuousClock.now - $0 >= reportEvery }) ?? true {
            let owed = (try? trackers.backlog().count).map(String.init) ?? "unknown"
            logger.error(
                "\(Self.describe(outage)) (logged once a minute while it lasts)",
                metadata: ["tracker_pings_owed": "\(owed)"])
            reported = .now
        }
        await database.probe()
        guard database.health.isAvailable else { return reported }
        logger.notice("the state database takes commits again; refused calls may be retried")
        return nil
    }

    /// The outage in one line, for the log and `GET /v1/health`.
    static func describe(_ outage: StateHealth.Outage) -> String {
        let seconds = (ContinuousClock.now - outage.since).components.seconds
        return "the state database takes no commits for \(seconds) s (\(outage.reason)): loads, ad events and "
            + "reward claims answer 503 state_unavailable until it does; signals are served"
    }
}
