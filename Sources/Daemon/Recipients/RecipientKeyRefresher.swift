import FoundationEssentials
import Logging
import Metrics
import SecureSignals
import SharedTypes
import Timing

/// Keeps every URL recipient's key set current: the stored set put in force when it is made
/// (so a device that boots offline seals at once), then, once started, one task per recipient
/// that fetches when there is no set and at half each set's lifetime (with jitter), backs off
/// after a failure, keeps the last good set through bad answers, and stores each new set
/// before it is used. The recipients it refreshes are the latest it was given; after `stop`
/// it refreshes none.
actor RecipientKeyRefresher {
    /// After the n-th failure in a row the next fetch waits `firstRetry` × 2^(n-1), at most `lastRetry`.
    static let firstRetry = Duration.seconds(10)
    static let lastRetry = Duration.seconds(1800)
    /// Those, drawn within 10% either side so that devices do not refetch in step.
    static let retryBackoff = Backoff(first: firstRetry, maximum: lastRetry, jitter: 0.9...1.1)
    /// A stored set fetched later than this past now (by this daemon's clock) is from a clock
    /// that was ahead, or this one is behind: its age is unknown.
    static let clockSkew: Int64 = 60_000

    private let store: RecipientKeyStore
    private let fetcher: any KeySetFetching
    private let clock: any EpochClock
    private let logger: Logger
    private let metrics: any MetricsFactory
    /// The recipients to refresh: those of the configuration in force.
    private var recipients: [String: Recipient]
    private var started = false
    private var stopped = false
    /// The recipients being refreshed, by name: the keys each refresh serves.
    private var running: [String: RecipientKeys] = [:]
    /// Each refresh's task, by recipient name.
    private let refreshes = OwnedTasks<String>()

    /// Puts the stored sets of `recipients` in force; nothing is fetched before `start`.
    init(
        recipients: [String: Recipient], store: RecipientKeyStore, fetcher: any KeySetFetching,
        clock: any EpochClock, logger: Logger, metrics: any MetricsFactory
    ) {
        self.store = store
        self.fetcher = fetcher
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.recipients = recipients
        restore(recipients)
    }

    /// Puts each URL recipient's stored set in force, if one was kept from the URL it names
    /// now and it has none yet; a damaged file is logged and left for the first fetch to
    /// replace. A set stored in this clock's future is taken as stale from now, and fetched
    /// again at once.
    nonisolated func restore(_ recipients: [String: Recipient]) {
        for (name, recipient) in recipients.sorted(by: { $0.key < $1.key }) {
            guard let keyURL = recipient.keys.keyURL, recipient.keys.keySet == nil else { continue }
            do {
                guard var set = try store.load(name, url: keyURL.url) else { continue }
                let now = clock.nowMilliseconds
                if set.fetchedAt > now + Self.clockSkew {
                    logger.warning(
                        "recipient \(name): the stored key set was fetched at \(RecipientKeys.time(set.fetchedAt)), after this clock's now (\(RecipientKeys.time(now))); it is used as stale and fetched again"
                    )
                    set.fetchedAt = now - set.lifetime.wholeMilliseconds
                }
                try recipient.keys.install(set)
                logger.info(
                    "recipient \(name): stored key set in force (key ids \(set.keyIDs)), fetched at \(RecipientKeys.time(set.fetchedAt))"
                )
            } catch {
                logger.warning("recipient \(name): the stored key set is not used: \(error)")
            }
        }
    }

    /// Starts refreshing.
    func start() {
        guard !stopped else { return }
        started = true
        reconcile()
    }

    /// Refreshes exactly the URL recipients of `recipients` from now on: a new one starts, one
    /// whose keys object is the one already refreshed goes on, any other stops.
    func update(_ recipients: [String: Recipient]) {
        guard !stopped else { return }
        self.recipients = recipients
        if started { reconcile() }
    }

    private func reconcile() {
        for (name, keys) in running where recipients[name]?.keys !== keys {
            refreshes.cancel(name)
            running[name] = nil
        }
        for (name, recipient) in recipients where running[name] == nil {
            guard let keyURL = recipient.keys.keyURL else { continue }
            let keys = recipient.keys
            // Ends when a reload drops the recipient or `stop` cancels it; `stop` waits for each.
            refreshes.start(name) { [fetcher, clock, logger, metrics] in
                await Refresh(
                    name: name, keyURL: keyURL, keys: keys, owner: self, fetcher: fetcher, clock: clock,
                    logger: logger, metrics: metrics
                ).run()
            }
            running[name] = keys
        }
    }

    /// Stops every refresh and returns once each has ended (a fetch under way is cancelled, a
    /// set being stored is stored).
    func stop() async {
        stopped = true
        running = [:]
        await refreshes.cancelAll()
    }

    /// Stores `set` for `name`, then puts it in force, if `keys` is still the one refreshed
    /// for that name; returns the set it replaced, or throws `Superseded`. One at a time, so
    /// a refresh a reload stopped cannot write over its successor's file.
    fileprivate func keep(_ set: RecipientKeySet, for name: String, in keys: RecipientKeys, url: String) throws
        -> RecipientKeySet?
    {
        guard !stopped, running[name] === keys else { throw Superseded() }
        // Made before the file is written: what is stored must be able to seal.
        let sealer = try RecipientKeys.sealer(for: set)
        do {
            try store.save(set, for: name, url: url)
        } catch {
            logger.warning(
                "recipient \(name): the new key set is in force but not stored for the next start: \(error)")
        }
        return keys.install(set, sealer: sealer)
    }

    fileprivate struct Superseded: Error {}
}

/// One recipient's refresh loop.
private struct Refresh {
    let name: String
    let keyURL: RecipientKeys.KeyURL
    let keys: RecipientKeys
    let owner: RecipientKeyRefresher
    let fetcher: any KeySetFetching
    let clock: any EpochClock
    let logger: Logger
    let metrics: any MetricsFactory

    func run() async {
        var failures = 0
        let now = clock.nowMilliseconds
        // A stored set is refreshed at its time, but no later than half a lifetime from now.
        var next =
            keys.keySet.map { min($0.refreshAt(jitter: .random(in: -1...1)), now + $0.lifetime.wholeMilliseconds / 2) }
            ?? now
        while !Task.isCancelled {
            keys.scheduleFetch(at: next)
            do {
                try await clock.sleep(untilMilliseconds: next)
            } catch {
                return
            }
            do {
                let set = try await fetch()
                failures = 0
                next = set.refreshAt(jitter: .random(in: -1...1))
            } catch is RecipientKeyRefresher.Superseded {
                return
            } catch let refusal as KeySetResponse.Refusal {
                if Task.isCancelled { return }
                failures += 1
                next =
                    clock.nowMilliseconds
                    + RecipientKeyRefresher.retryBackoff.delay(afterFailures: failures).wholeMilliseconds
                // Recorded once the next try is set: whoever sees the failure sees its schedule.
                keys.scheduleFetch(at: next)
                failed(refusal)
            } catch {
                return
            }
        }
    }

    /// Fetches, judges, stores and installs a set.
    private func fetch() async throws -> RecipientKeySet {
        let answer = try await fetcher.fetch(keyURL)
        let set = try KeySetResponse.keySet(
            status: answer.status, headers: answer.headers, body: answer.body, fetchedAt: clock.nowMilliseconds,
            defaultMaxAge: keyURL.defaultMaxAge)
        let previous: RecipientKeySet?
        do {
            previous = try await owner.keep(set, for: name, in: keys, url: keyURL.url)
        } catch let superseded as RecipientKeyRefresher.Superseded {
            throw superseded
        } catch {
            throw KeySetResponse.Refusal(.noSupportedSuite, "answered a set this daemon cannot seal with: \(error)")
        }
        count(outcome: "ok")
        guard let previous else {
            logger.info("recipient \(name): key set fetched, key ids \(set.keyIDs)")
            return set
        }
        if previous.configs != set.configs {
            Counter(
                label: "secure_signals_recipient_key_changes_total", dimensions: [("recipient", name)], factory: metrics
            )
            .increment()
            logger.notice("recipient \(name): key set changed, key ids \(previous.keyIDs) -> \(set.keyIDs)")
            let reused = previous.configs.filter { old in set.configs.contains { $0.keyID == old.keyID && $0 != old } }
            for old in reused {
                logger.warning(
                    "recipient \(name): key id \(old.keyID) now names a different key; envelopes sealed with the old one carry the same id"
                )
            }
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
            meanwhile = keys.files != nil ? "sealing with its key_configs files" : "its signals answer no_recipient_key"
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
