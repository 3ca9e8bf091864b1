import Logging
import Metrics
import SharedTypes
import Synchronization
import Timing

extension TrackerQueue {
    /// The queue's state and its two loops: the committer, which writes what is enqueued and
    /// settled, and the deliveries, one task per owed ping.
    final class Engine: Sendable {
        struct State {
            var unsaved: [(url: String, kind: Kind, observer: PingObserver?)] = []
            /// Who hears of each try of a stored ping (the inspector's notices), by id: only
            /// while the daemon runs, at most `maxObservers`.
            var observers: [Int64: PingObserver] = [:]
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
            /// When the earliest stored retry is due (nil: none is owed), and when the timer
            /// set for it (`timers`' `.retry`) wakes the committer.
            var retryDue: Int64?
            var timerAt: Int64?
            /// Drained: nothing more is taken.
            var stopped = false
            /// Who waits for the queue to have nothing to do now (`idle()`).
            var idleWaiters: [CheckedContinuation<Void, Never>] = []
            /// A commit is being written: what it adds is in neither `unsaved` nor `inHand`.
            var committing = false

            /// Nothing unsaved, nothing in hand, nothing untried left in the outbox, no retry
            /// due by `now`: the queue has nothing to do until a retry's time or a new ping.
            func isIdle(at now: Int64) -> Bool {
                !committing && unsaved.isEmpty && settled.isEmpty && rescheduled.isEmpty && inHand.isEmpty
                    && deferred == 0 && (retryDue.map { $0 > now } ?? true)
            }
        }

        let state = Mutex(State())
        /// The most pings heard of at once; past it, the oldest go unheard.
        static let maxObservers = 4096
        let fetcher: any AdFetcher
        let outbox: any TrackerOutbox
        let clock: any EpochClock
        let settings: Settings
        let logger: Logger
        let outcomes: [String: Counter]
        /// Faults that last (a failed commit, pings given up) are logged once a minute each.
        let faults = RateLimitedLog(clock: ContinuousClock())
        /// `secure_signals_tracker_given_up_total{reason}`: pings no longer owed though unsent.
        let givenUp: [String: Counter]
        let wakes: AsyncStream<Void>.Continuation
        let wakeups: AsyncStream<Void>
        /// The timers that wake the committer: the next retry's, and a failed read's second
        /// try. Cancelled when the run ends.
        let timers = OwnedTasks<RetryTimer>()
        enum RetryTimer { case retry }
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
        func takeOwed() async {
            do {
                let untried = try await outbox.untriedCount()
                let retryDue = try await outbox.nextDue(after: .min)
                guard untried > 0 || retryDue != nil else { return }
                state.withLock { state in
                    state.deferred = untried
                    state.retryDue = retryDue
                }
                await refill()
                let backlog = try? await outbox.backlog()
                logger.notice(
                    "sending tracker pings owed from before",
                    metadata: ["count": "\(backlog?.count ?? untried)"])
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
        func wake(at time: Int64) {
            let (clock, wakes) = (self.clock, self.wakes)
            timers.start {
                do { try await clock.sleep(untilMilliseconds: time) } catch { return }
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
        func refill() async {
            await takeUntried()
            await takeDue()
            armTimer()
        }

        /// The room in the window, once it is half empty; 0 before.
        private func room(_ state: State) -> Int {
            state.inHand.count <= settings.window / 2 ? settings.window - state.inHand.count : 0
        }

        /// Takes deferred untried pings, oldest first.
        private func takeUntried() async {
            let (after, room) = state.withLock { state -> (Int64, Int) in
                state.deferred > 0 ? (state.handedThrough, self.room(state)) : (0, 0)
            }
            guard room > 0 else { return }
            do {
                let pings = try await outbox.untried(after: after, limit: room)
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
        private func takeDue() async {
            let now = clock.nowMilliseconds
            let (room, inHand) = state.withLock { state -> (Int, Int) in
                guard let due = state.retryDue, due <= now else { return (0, 0) }
                let retryRoom = settings.retriesAtOnce - state.retriesInHand.count
                return (min(self.room(state), retryRoom), state.retriesInHand.count)
            }
            guard room > 0 else { return }
            do {
                // Retries already in hand may be among those due: ask for enough to skip them.
                let pings = try await outbox.due(by: now, limit: room + inHand)
                let next = pings.count < room + inHand ? try await outbox.nextDue(after: now) : now
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
            let due = state.withLock { state -> Int64? in
                guard !state.stopped, let due = state.retryDue, due > now else { return nil }
                if let at = state.timerAt, at <= due { return nil }
                state.timerAt = due
                return due
            }
            guard let due else { return }
            let (clock, wakes) = (clock, wakes)
            // Started outside the lock: it replaces (cancels) a later timer, whose cancellation
            // runs the clock's handler at once.
            timers.start(.retry) { [weak self] in
                do { try await clock.sleep(untilMilliseconds: due) } catch { return }
                self?.state.withLock { state in
                    if state.timerAt == due { state.timerAt = nil }
                }
                wakes.yield()
            }
        }
    }
}
