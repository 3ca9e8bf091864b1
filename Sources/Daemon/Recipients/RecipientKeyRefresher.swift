import Foundation
import Logging
import Mediation
import Metrics
import SecureSignals
import Timing

/// Keeps every URL recipient's key set current: the stored set put in force at start (so a
/// device that boots offline seals at once), then one task per recipient that fetches when
/// there is no set and at half each set's lifetime (with jitter), backs off after a failure,
/// keeps the last good set through bad answers, and stores each new one before it is used.
actor RecipientKeyRefresher {
    /// After the n-th failure in a row the next fetch waits `firstRetry` × 2^(n-1), at most `lastRetry`.
    static let firstRetry = Duration.seconds(10)
    static let lastRetry = Duration.seconds(1800)

    private let store: RecipientKeyStore
    private let fetcher: any KeySetFetching
    private let clock: any EpochClock
    private let logger: Logger
    private let metrics: any MetricsFactory
    /// The recipients being refreshed, by name, with their tasks.
    private var running: [String: (keys: RecipientKeys, task: Task<Void, Never>)] = [:]

    init(
        store: RecipientKeyStore, fetcher: any KeySetFetching, clock: any EpochClock, logger: Logger,
        metrics: any MetricsFactory
    ) {
        self.store = store
        self.fetcher = fetcher
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    /// Puts each URL recipient's stored set in force, if one was kept from the URL it names
    /// now; a damaged file is logged and left for the first fetch to replace.
    nonisolated func restore(_ recipients: [String: Recipient]) {
        for (name, recipient) in recipients {
            guard let keyURL = recipient.keys.keyURL, recipient.keys.keySet == nil else { continue }
            do {
                guard let set = try store.load(name, url: keyURL.url) else { continue }
                try recipient.keys.install(set)
                logger.info(
                    "recipient \(name): stored key set in force (key ids \(set.keyIDs)), fetched at \(RecipientKeys.time(set.fetchedAt))"
                )
            } catch {
                logger.warning("recipient \(name): the stored key set is not used: \(error)")
            }
        }
    }

    /// Refreshes exactly the URL recipients of `recipients`: a new one starts, one whose keys
    /// object is the one already refreshed goes on, any other stops.
    func manage(_ recipients: [String: Recipient]) {
        for (name, entry) in running where recipients[name]?.keys !== entry.keys {
            entry.task.cancel()
            running[name] = nil
        }
        for (name, recipient) in recipients where running[name] == nil {
            guard let keyURL = recipient.keys.keyURL else { continue }
            let keys = recipient.keys
            let task = Task { [store, fetcher, clock, logger, metrics] in
                await Refresh(
                    name: name, keyURL: keyURL, keys: keys, store: store, fetcher: fetcher, clock: clock,
                    logger: logger, metrics: metrics
                ).run()
            }
            running[name] = (keys, task)
        }
    }

    /// Stops every refresh; a fetch under way is cancelled.
    func stop() {
        for entry in running.values { entry.task.cancel() }
        running = [:]
    }
}

/// One recipient's refresh loop.
private struct Refresh {
    let name: String
    let keyURL: RecipientKeys.KeyURL
    let keys: RecipientKeys
    let store: RecipientKeyStore
    let fetcher: any KeySetFetching
    let clock: any EpochClock
    let logger: Logger
    let metrics: any MetricsFactory

    func run() async {
        var failures = 0
        let now = clock.nowMilliseconds
        // A stored set is refreshed at its time, but no later than half a lifetime from now:
        // a clock that is behind the one it was fetched by does not put the refresh off.
        var next =
            keys.keySet.map { min($0.refreshAt(jitter: .random(in: -1...1)), now + $0.lifetime.wholeMilliseconds / 2) }
            ?? now
        while !Task.isCancelled {
            do {
                try await clock.sleep(untilMilliseconds: next)
            } catch {
                return
            }
            do {
                let set = try await fetch()
                failures = 0
                next = set.refreshAt(jitter: .random(in: -1...1))
            } catch {
                if Task.isCancelled { return }
                failures += 1
                failed(error)
                let wait = min(
                    RecipientKeyRefresher.firstRetry * (1 << min(failures - 1, 16)), RecipientKeyRefresher.lastRetry)
                next = clock.nowMilliseconds + (wait * Double.random(in: 0.9...1.1)).wholeMilliseconds
            }
        }
    }

    /// Fetches, judges and installs a set; stores it for the next start.
    private func fetch() async throws(KeySetResponse.Refusal) -> RecipientKeySet {
        let answer = try await fetcher.fetch(keyURL)
        // Stopped meanwhile (a reload changed the recipient): its answer is not this one's.
        if Task.isCancelled { throw KeySetResponse.Refusal(.transport, "was stopped") }
        let set = try KeySetResponse.keySet(
            status: answer.status, headers: answer.headers, body: answer.body, fetchedAt: clock.nowMilliseconds,
            defaultMaxAge: keyURL.defaultMaxAge)
        let previous: [UInt8]?
        do {
            previous = try keys.install(set)
        } catch {
            throw KeySetResponse.Refusal(.noSupportedSuite, "answered a set this daemon cannot seal with: \(error)")
        }
        count(outcome: "ok")
        if let previous, previous != set.keyIDs {
            Counter(
                label: "secure_signals_recipient_key_changes_total", dimensions: [("recipient", name)], factory: metrics
            )
            .increment()
            logger.notice("recipient \(name): key set changed, key ids \(previous) -> \(set.keyIDs)")
        } else if previous == nil {
            logger.info("recipient \(name): key set fetched, key ids \(set.keyIDs)")
        }
        do {
            try store.save(set, for: name, url: keyURL.url)
        } catch {
            logger.warning("recipient \(name): the new key set is in force but not stored for the next start: \(error)")
        }
        return set
    }

    /// Records a failed fetch and says what the recipient seals with meanwhile.
    private func failed(_ refusal: KeySetResponse.Refusal) {
        count(outcome: refusal.reason.rawValue)
        keys.recordFailure(refusal.description)
        let now = clock.nowMilliseconds
        let meanwhile: String
        switch (keys.state(at: now), keys.keySet) {
        case (.fresh, _): meanwhile = "the current key set is fresh"
        case (.stale, let set?):
            meanwhile =
                "sealing with a stale key set until \(RecipientKeys.time(set.staleUntil(maxStale: keyURL.maxStale)))"
        default:
            meanwhile =
                keys.files != nil
                ? "sealing with its key_configs files" : "its signals answer no_recipient_key"
        }
        logger.warning("recipient \(name): key URL \(redactedURL(keyURL.url)) \(refusal.description); \(meanwhile)")
    }

    private func count(outcome: String) {
        Counter(
            label: "secure_signals_recipient_key_fetches_total",
            dimensions: [("recipient", name), ("outcome", outcome)], factory: metrics
        ).increment()
    }
}
