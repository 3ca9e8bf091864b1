import Logging
import Metrics
import Synchronization
import Timing

/// Sends tracker URLs (impressions, clicks, video progress, errors, win and loss notices) from a
/// durable outbox. `enqueue` never waits; `committed()` returns once everything enqueued before
/// it is on disk, so an answer that waits for it is never lost to a crash or a power cut.
/// Commits that come while one is being written share the next one (and its sync to disk).
///
/// A ping leaves the outbox when its tracker answers 2xx or 3xx, or 4xx (it will not change on a
/// second try), or `maxAge` after it was owed (dropped and counted). Other failures (5xx, a
/// timeout, no connection) are tried again with jittered exponential backoff; a ping waits out
/// its pause in the outbox, not in memory, so a dead tracker's backlog never holds the window
/// that other trackers' pings need. A restarted
/// daemon sends what is still owed: at least once, and only a ping in flight at a crash may go
/// twice. URLs are logged by kind only: they carry ids a log must not keep.
public final class TrackerQueue: Sendable {
    /// What a tracker reports; the metrics' `kind` label.
    public enum Kind: String, Sendable, CaseIterable {
        case impression, click, progress, error, win, loss
        /// A reward's server-side-verification callback.
        case ssv
    }

    public struct Settings: Sendable, Equatable {
        /// Tries at once; the others wait their turn.
        public var concurrency: Int
        public var timeout: Duration
        /// The pause before the second try; it doubles for each one after, up to `maxDelay`,
        /// each drawn between half and all of it so that a fleet does not retry in step.
        public var retryDelay: Duration
        public var maxDelay: Duration
        /// How long a ping is owed before it is given up (`trackers.max_age_ms`) ...
        public var maxAge: Duration
        /// ... and an SSV callback (`ssv.max_age_ms`).
        public var ssvMaxAge: Duration
        /// The most retries in memory at once (tried, or waiting for a fetch slot): twice
        /// `concurrency`, so the slots stay busy while each batch is written.
        var retriesAtOnce: Int { max(1, 2 * concurrency) }
        /// The most owed pings held in memory, each with its delivery; the rest wait in the
        /// outbox and are taken as those settle: first the untried, oldest first, then those
        /// whose next try is due, earliest first.
        public var window: Int
        /// The most pings owed at once (`trackers.max_owed`): past it the oldest are given up,
        /// counted, so that a dead tracker cannot fill the disk.
        public var maxOwed: Int
        /// The longest URL owed (`trackers.max_url_bytes`): a longer one is given up at once,
        /// so that the outbox's bytes are bounded too (at most `maxOwed` × this).
        public var maxURLBytes: Int

        public init(
            concurrency: Int = 8, timeout: Duration = .seconds(5), retryDelay: Duration = .seconds(1),
            maxDelay: Duration = .seconds(600), maxAge: Duration = .seconds(86_400),
            ssvMaxAge: Duration = .seconds(7 * 86_400), window: Int = 10_000, maxOwed: Int = 100_000,
            maxURLBytes: Int = 16_384
        ) {
            self.window = max(1, window)
            self.maxURLBytes = max(1, maxURLBytes)
            self.maxOwed = max(1, maxOwed)
            self.concurrency = concurrency
            self.timeout = timeout
            self.retryDelay = retryDelay
            self.maxDelay = maxDelay
            self.maxAge = maxAge
            self.ssvMaxAge = ssvMaxAge
        }

        /// Whether `ping` is past its kind's max age at `time` (wall-clock ms).
        func isPastMaxAge(_ ping: OwedPing, at time: Int64) -> Bool {
            time - ping.createdAt > (ping.kind == .ssv ? ssvMaxAge : maxAge).wholeMilliseconds
        }
    }

    /// What the outbox holds and how long its oldest ping has been owed: the metrics' gauges.
    public struct Backlog: Sendable, Equatable {
        public var count: Int
        /// How long the oldest owed ping has been owed; nil when none is.
        public var oldestAge: Duration?
    }

    private let engine: Engine
    private let committer: Task<Void, Never>
    private let sender: Task<Void, Never>

    /// Starts sending what `outbox` already owes (from before a restart), then what is enqueued.
    /// `metrics`: where the outcome counters go (the process's backend unless a test gives one).
    public init(
        fetcher: any AdFetcher, outbox: any TrackerOutbox, clock: any EpochClock, settings: Settings = Settings(),
        logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        let engine = Engine(
            fetcher: fetcher, outbox: outbox, clock: clock, settings: settings, logger: logger, metrics: metrics)
        self.engine = engine
        engine.takeOwed()
        committer = Task { await engine.commitUntilFinished() }
        sender = Task {
            let slots = FetchSlots(max(1, settings.concurrency))
            await withDiscardingTaskGroup { group in
                for await ping in engine.pings {
                    group.addTask { await engine.deliver(ping, slots: slots) }
                }
            }
        }
    }

    deinit {
        engine.state.withLock { $0.timer?.task.cancel() }
        engine.wakes.finish()
        engine.send.finish()
        sender.cancel()
    }

    /// Owes each non-empty URL once; returns at once. `committed()` waits for it to be on disk.
    public func enqueue(_ urls: [String], kind: Kind) {
        let now = engine.clock.nowMilliseconds
        let tooLong = urls.filter { $0.utf8.count > engine.settings.maxURLBytes }.count
        if tooLong > 0 { engine.gaveUp(tooLong, reason: "too_long") }
        let added = engine.state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            if state.unsaved.isEmpty { state.unsavedSince = now }
            var added = 0
            for url in urls where !url.isEmpty && url.utf8.count <= engine.settings.maxURLBytes {
                state.unsaved.append((url, kind))
                added += 1
            }
            state.enqueued += UInt64(added)
            return added
        }
        guard let added else {
            engine.logger.warning(
                "tracker pings came after the stop and are not owed", metadata: ["kind": "\(kind.rawValue)"])
            return
        }
        if added > 0 { engine.wakes.yield() }
    }

    /// Takes a ping another commit stored (an SSV callback, stored with its reward) for sending.
    public func adopt(_ ping: OwedPing) {
        // Outside the window: one per reward, and its id may precede those already handed.
        let taken = engine.state.withLock { state -> Bool in
            // Stopped: the next start sends it.
            guard !state.stopped, !state.inHand.contains(ping.id) else { return false }
            state.inHand.insert(ping.id)
            return true
        }
        if taken { engine.send.yield(ping) }
    }

    /// Returns once every ping enqueued before the call is on disk; throws when the outbox could
    /// not be written (the pings stay queued, and are written at the next commit that works).
    public func committed() async throws {
        try await engine.committed()
    }

    /// What is owed now, for the outbox's gauges: what is stored and what is not yet; throws
    /// when the outbox cannot be read.
    public func backlog() throws -> Backlog {
        let (unsaved, unsavedSince) = engine.state.withLock { state in
            (state.unsaved.count, state.unsaved.isEmpty ? nil : state.unsavedSince)
        }
        let stored = try engine.outbox.backlog()
        let oldest = [stored.oldest, unsavedSince].compactMap { $0 }.min()
        let now = engine.clock.nowMilliseconds
        return Backlog(
            count: stored.count + unsaved, oldestAge: oldest.map { .milliseconds(max(0, now - $0)) })
    }

    /// Stops sending and writes what is owed: a ping not yet answered stays in the outbox for
    /// the next start, so a stop loses nothing and waits for no tracker.
    public func drain() async {
        engine.send.finish()
        sender.cancel()
        await sender.value
        engine.wakes.finish()
        await committer.value
        // What comes now is refused; a waiter left (its commit failed) is told.
        let waiters = engine.state.withLock { state in
            state.stopped = true
            state.timer?.task.cancel()
            state.timer = nil
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(throwing: TrackerQueueStopped()) }
    }
}

/// A ping enqueued after the queue stopped: it is not owed.
public struct TrackerQueueStopped: Error, CustomStringConvertible {
    public var description: String { "the tracker queue has stopped" }
}

extension TrackerQueue {
    /// The queue's state and its two loops: the committer, which writes what is enqueued and
    /// settled, and the deliveries, one task per owed ping.
    fileprivate final class Engine: Sendable {
        struct State {
            var unsaved: [(url: String, kind: Kind)] = []
            /// When the oldest unsaved ping was enqueued.
            var unsavedSince: Int64?
            /// Pings enqueued so far, and of them those on disk: `committed()` waits for its
            /// count to be saved.
            var enqueued: UInt64 = 0
            var saved: UInt64 = 0
            var waiters: [(upTo: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
            var settled: [Int64] = []
            var rescheduled: [(id: Int64, attempts: Int, dueAt: Int64)] = []
            /// Every stored ping in hand (being delivered, or settled or rescheduled but not yet
            /// written), by id; and of them those tried before.
            var inHand: Set<Int64> = []
            var retriesInHand: Set<Int64> = []
            /// Untried stored pings not in hand (past the window), and the largest id handed:
            /// the next ones are taken from the outbox after it.
            var deferred = 0
            var handedThrough: Int64 = 0
            /// When the earliest stored retry is due (nil: none is owed), and the timer that
            /// wakes the committer then.
            var retryDue: Int64?
            var timer: (at: Int64, task: Task<Void, Never>)?
            /// Drained: nothing more is taken.
            var stopped = false
            /// When a failed commit was last logged (wall-clock ms): once a minute while it lasts.
            var failureLoggedAt: Int64?
            /// When pings given up were last logged, by reason (wall-clock ms).
            var givenUpLoggedAt: [String: Int64] = [:]
        }

        let state = Mutex(State())
        let fetcher: any AdFetcher
        let outbox: any TrackerOutbox
        let clock: any EpochClock
        let settings: Settings
        let logger: Logger
        let outcomes: [String: Counter]
        /// `secure_signals_tracker_given_up_total{reason}`: pings no longer owed though unsent.
        let givenUp: [String: Counter]
        let wakes: AsyncStream<Void>.Continuation
        private let wakeups: AsyncStream<Void>
        /// Stored pings, for the sender to deliver.
        let pings: AsyncStream<OwedPing>
        let send: AsyncStream<OwedPing>.Continuation

        init(
            fetcher: any AdFetcher, outbox: any TrackerOutbox, clock: any EpochClock, settings: Settings,
            logger: Logger, metrics: any MetricsFactory
        ) {
            self.fetcher = fetcher
            self.outbox = outbox
            self.clock = clock
            self.settings = settings
            self.logger = logger
            var counters: [String: Counter] = [:]
            for kind in Kind.allCases {
                for outcome in ["fired", "failed", "retried", "dropped"] {
                    counters[kind.rawValue + outcome] = Counter(
                        label: "secure_signals_trackers_total",
                        dimensions: [("kind", kind.rawValue), ("outcome", outcome)], factory: metrics)
                }
            }
            outcomes = counters
            givenUp = Dictionary(
                uniqueKeysWithValues: ["max_age", "outbox_full", "too_long"].map { reason in
                    (
                        reason,
                        Counter(
                            label: "secure_signals_tracker_given_up_total", dimensions: [("reason", reason)],
                            factory: metrics)
                    )
                })
            (wakeups, wakes) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            (pings, send) = AsyncStream<OwedPing>.makeStream()
        }

        func count(_ kind: Kind, _ outcome: String) {
            outcomes[kind.rawValue + outcome]?.increment()
        }

        /// Takes what a previous run left owed (a window of it) for the sender.
        func takeOwed() {
            do {
                let untried = try outbox.untriedCount()
                let retryDue = try outbox.nextDue(after: .min)
                guard untried > 0 || retryDue != nil else { return }
                state.withLock { state in
                    state.deferred = untried
                    state.retryDue = retryDue
                }
                refill()
                logger.notice(
                    "sending tracker pings owed from before",
                    metadata: ["count": "\((try? outbox.backlog().count) ?? untried)"])
            } catch {
                // Read it all again in a second: as if untried pings and due retries waited.
                state.withLock { state in
                    state.deferred = max(state.deferred, 1)
                    state.retryDue = .min
                }
                readFailed(error)
            }
        }

        /// Logs a failed read of the outbox and wakes the committer a second later, so that
        /// `refill` reads again even when nothing else happens.
        private func readFailed(_ error: any Error) {
            logger.error("the tracker outbox could not be read", metadata: ["error": "\(error)"])
            wake(at: clock.nowMilliseconds + 1000)
        }

        /// Wakes the committer at `time` (wall-clock ms), whether or not anything else does.
        private func wake(at time: Int64) {
            let (clock, wakes) = (self.clock, self.wakes)
            Task {
                try? await clock.sleep(untilMilliseconds: time)
                wakes.yield()
            }
        }

        /// Hands stored pings to the sender, in id order, while the window has room; the others
        /// wait in the outbox (`deferred`).
        func hand(_ pings: [OwedPing]) {
            let handed = state.withLock { state -> [OwedPing] in
                var handed: [OwedPing] = []
                for ping in pings where !state.inHand.contains(ping.id) {
                    if state.deferred == 0, state.inHand.count < settings.window {
                        state.inHand.insert(ping.id)
                        state.handedThrough = max(state.handedThrough, ping.id)
                        handed.append(ping)
                    } else {
                        state.deferred += 1
                    }
                }
                return handed
            }
            for ping in handed { send.yield(ping) }
        }

        /// Once the window is half empty, takes stored pings into it: untried ones first, then
        /// retries that are due; then sets the timer for the next retry.
        func refill() {
            takeUntried()
            takeDue()
            armTimer()
        }

        /// The room in the window, once it is half empty; 0 before.
        private func room(_ state: State) -> Int {
            state.inHand.count <= settings.window / 2 ? settings.window - state.inHand.count : 0
        }

        /// Takes deferred untried pings, oldest first.
        private func takeUntried() {
            let (after, room) = state.withLock { state -> (Int64, Int) in
                state.deferred > 0 ? (state.handedThrough, self.room(state)) : (0, 0)
            }
            guard room > 0 else { return }
            do {
                let pings = try outbox.untried(after: after, limit: room)
                let handed = state.withLock { state -> [OwedPing] in
                    let fresh = pings.filter { !state.inHand.contains($0.id) }
                    for ping in fresh {
                        state.inHand.insert(ping.id)
                        state.handedThrough = max(state.handedThrough, ping.id)
                    }
                    state.deferred = pings.count < room ? 0 : max(0, state.deferred - fresh.count)
                    return fresh
                }
                for ping in handed { send.yield(ping) }
            } catch {
                readFailed(error)
            }
        }

        /// Takes stored retries that are due, earliest first, and learns when the next one is.
        /// At most `retriesAtOnce` are in hand: retries enter memory only as fast as they can be
        /// tried, so a dead tracker's due backlog never queues ahead of other pings for long.
        private func takeDue() {
            let now = clock.nowMilliseconds
            let (room, inHand) = state.withLock { state -> (Int, Int) in
                guard let due = state.retryDue, due <= now else { return (0, 0) }
                let retryRoom = settings.retriesAtOnce - state.retriesInHand.count
                return (min(self.room(state), retryRoom), state.retriesInHand.count)
            }
            guard room > 0 else { return }
            do {
                // Retries already in hand may be among those due: ask for enough to skip them.
                let pings = try outbox.due(by: now, limit: room + inHand)
                let next = pings.count < room + inHand ? try outbox.nextDue(after: now) : now
                let handed = state.withLock { state -> [OwedPing] in
                    let due = pings.filter { !state.inHand.contains($0.id) }
                    let fresh = due.prefix(room)
                    for ping in fresh {
                        state.inHand.insert(ping.id)
                        state.retriesInHand.insert(ping.id)
                    }
                    // Some due were left for want of room: due now still.
                    state.retryDue = due.count > room ? now : next
                    return Array(fresh)
                }
                for ping in handed { send.yield(ping) }
            } catch {
                readFailed(error)
            }
        }

        /// Wakes the committer (and so `refill`) when the next stored retry is due, unless a
        /// timer already will by then.
        private func armTimer() {
            let now = clock.nowMilliseconds
            state.withLock { state in
                guard !state.stopped, let due = state.retryDue, due > now else { return }
                if let timer = state.timer {
                    guard due < timer.at else { return }
                    timer.task.cancel()
                }
                let (clock, wakes) = (clock, wakes)
                let task = Task { [weak self] in
                    do { try await clock.sleep(untilMilliseconds: due) } catch { return }
                    self?.state.withLock { state in
                        if state.timer?.at == due { state.timer = nil }
                    }
                    wakes.yield()
                }
                state.timer = (due, task)
            }
        }

        /// Writes each batch as it comes, until the queue is drained (one last commit then).
        func commitUntilFinished() async {
            for await _ in wakeups { await commitPending() }
            await commitPending()
        }

        /// Writes everything enqueued, settled and rescheduled so far, in as few commits as the
        /// disk allows: what comes during one commit goes in the next.
        func commitPending() async {
            while true {
                let now = clock.nowMilliseconds
                let (commit, upTo) = state.withLock { state -> (OutboxCommit, UInt64) in
                    var commit = OutboxCommit()
                    commit.adding = state.unsaved
                    commit.addedAt = state.unsavedSince ?? now
                    commit.settled = state.settled
                    commit.rescheduled = state.rescheduled
                    commit.maximumOwed = settings.maxOwed
                    state.unsaved = []
                    state.unsavedSince = nil
                    state.settled = []
                    state.rescheduled = []
                    return (commit, state.enqueued)
                }
                if commit.isEmpty {
                    resumeWaiters(upTo: upTo, failure: nil)
                    refill()
                    return
                }
                do {
                    let committed = try await outbox.commit(commit)
                    let added = committed.added
                    if committed.givenUp > 0 { gaveUp(committed.givenUp, reason: "outbox_full") }
                    state.withLock { state in
                        state.saved = upTo
                        for id in commit.settled + commit.rescheduled.map(\.id) {
                            state.inHand.remove(id)
                            state.retriesInHand.remove(id)
                        }
                        if let earliest = commit.rescheduled.map(\.dueAt).min() {
                            state.retryDue = min(state.retryDue ?? earliest, earliest)
                        }
                    }
                    resumeWaiters(upTo: upTo, failure: nil)
                    hand(added)
                    refill()
                } catch {
                    let now = clock.nowMilliseconds
                    let log = state.withLock { state in
                        if let last = state.failureLoggedAt, now >= last, now - last < 60_000 { return false }
                        state.failureLoggedAt = now
                        return true
                    }
                    if log {
                        logger.error(
                            "the tracker outbox could not be written (logged once a minute while it lasts)",
                            metadata: ["error": "\(error)"])
                    }
                    state.withLock { state in
                        state.unsaved = commit.adding + state.unsaved
                        state.unsavedSince = commit.adding.isEmpty ? state.unsavedSince : commit.addedAt
                        state.settled = commit.settled + state.settled
                        state.rescheduled = commit.rescheduled + state.rescheduled
                    }
                    resumeWaiters(upTo: upTo, failure: error)
                    // Pings no call waits for (a background load's notices) are tried again
                    // a second later, whether or not another call comes.
                    wake(at: clock.nowMilliseconds + 1000)
                    return
                }
            }
        }

        /// Resumes the waiters whose pings are in a commit up to `upTo`: with `failure` when it
        /// was not written.
        private func resumeWaiters(upTo: UInt64, failure: (any Error)?) {
            let ready = state.withLock { state in
                let ready = state.waiters.filter { $0.upTo <= upTo }
                state.waiters.removeAll { $0.upTo <= upTo }
                return ready.map(\.continuation)
            }
            for waiter in ready {
                if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
            }
        }

        func committed() async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Bool, any Error> in
                    guard state.saved < state.enqueued else { return .success(true) }
                    guard !state.stopped else { return .failure(TrackerQueueStopped()) }
                    state.waiters.append((state.enqueued, continuation))
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success(false): wakes.yield()
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        }

        /// Tries `ping` once: it settles, or is rescheduled to wait out its pause in the outbox.
        /// Returns early, the ping still owed as it was, when the queue is drained.
        func deliver(_ initial: OwedPing, slots: FetchSlots) async {
            var ping = initial
            // One owed from before a restart, or rescheduled, may be past its age already.
            if settings.isPastMaxAge(ping, at: clock.nowMilliseconds) {
                drop(ping, reason: "too old")
                return
            }
            await slots.acquire()
            if Task.isCancelled {
                await slots.release()
                return
            }
            let outcome = await attempt(ping)
            await slots.release()
            ping.attempts += 1
            switch outcome {
            case .sent:
                count(ping.kind, "fired")
                settle(ping.id)
            case .refused(let reason):
                count(ping.kind, "failed")
                logger.warning(
                    "a tracker refused its ping", metadata: ["kind": "\(ping.kind.rawValue)", "reason": "\(reason)"])
                settle(ping.id)
            case .retry(let reason):
                // A try the drain cut short: still owed, for the next start.
                if Task.isCancelled { return }
                let due = clock.nowMilliseconds + backoff(afterAttempt: ping.attempts)
                if settings.isPastMaxAge(ping, at: due) {
                    drop(ping, reason: reason)
                    return
                }
                count(ping.kind, "retried")
                state.withLock { $0.rescheduled.append((ping.id, ping.attempts, due)) }
                wakes.yield()
            }
        }

        private enum Outcome {
            case sent
            case refused(String)
            case retry(String)
        }

        /// One try: 2xx and 3xx are sent; 4xx and a URL that cannot be sent are refused for
        /// good; the rest may work later.
        private func attempt(_ ping: OwedPing) async -> Outcome {
            do {
                let response = try await fetcher.send(
                    AdServerRequest(url: ping.url, timeout: settings.timeout, redirects: .anyOrigin))
                switch response.status {
                case 200..<400: return .sent
                case 400..<500: return .refused("HTTP \(response.status)")
                default: return .retry("HTTP \(response.status)")
                }
            } catch {
                switch error.kind {
                case .invalidURL, .tooManyRedirects, .redirectRefused: return .refused(error.kind.rawValue)
                case .tooLarge: return .sent  // it answered; only its body was over the cap
                case .timeout, .transport, .status: return .retry(error.kind.rawValue)
                }
            }
        }

        /// The pause after `attempt` tries: `retryDelay` doubled for each try after the first,
        /// at most `maxDelay`, drawn between half and all of it. Milliseconds.
        private func backoff(afterAttempt attempt: Int) -> Int64 {
            let base = settings.retryDelay.wholeMilliseconds
            let cap = max(1, settings.maxDelay.wholeMilliseconds)
            let doubled = base << Int64(min(max(0, attempt - 1), 30))
            let ceiling = max(1, min(cap, doubled))
            return Int64.random(in: (ceiling + 1) / 2...ceiling)
        }

        /// Counts and logs (once a minute at most) pings given up unsent: the oldest, for room
        /// (`outbox_full`), or URLs too long to owe (`too_long`).
        func gaveUp(_ count: Int, reason: String) {
            givenUp[reason]?.increment(by: count)
            let now = clock.nowMilliseconds
            let log = state.withLock { state in
                if let last = state.givenUpLoggedAt[reason], now >= last, now - last < 60_000 { return false }
                state.givenUpLoggedAt[reason] = now
                return true
            }
            guard log else { return }
            if reason == "outbox_full" {
                logger.warning(
                    "the tracker outbox is full (trackers.max_owed): the oldest owed pings were given up (logged once a minute)",
                    metadata: ["given_up": "\(count)", "max_owed": "\(settings.maxOwed)"])
            } else {
                logger.warning(
                    "tracker URLs over trackers.max_url_bytes were given up (logged once a minute)",
                    metadata: ["given_up": "\(count)", "max_url_bytes": "\(settings.maxURLBytes)"])
            }
        }

        /// Gives `ping` up, past its max age: counted, logged, no longer owed.
        private func drop(_ ping: OwedPing, reason: String) {
            givenUp["max_age"]?.increment()
            count(ping.kind, "dropped")
            logger.warning(
                "a tracker ping was given up after its max age (trackers.max_age_ms, ssv.max_age_ms)",
                metadata: ["kind": "\(ping.kind.rawValue)", "reason": "\(reason)", "attempts": "\(ping.attempts)"])
            settle(ping.id)
        }

        private func settle(_ id: Int64) {
            state.withLock { $0.settled.append(id) }
            wakes.yield()
        }
    }
}

/// At most `count` fetches at once; the others wait their turn, first come first served.
private actor FetchSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
