import Logging
import Metrics
import SharedTypes
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

    /// What the outbox holds and how long its oldest ping has been owed: the metrics' gauges.
    public struct Backlog: Sendable, Equatable {
        public var count: Int
        /// How long the oldest owed ping has been owed; nil when none is.
        public var oldestAge: Duration?
    }

    private let engine: Engine
    /// Whether `run` has begun or ended, and the request to stop it.
    private let lifecycle = RunOnce()

    /// A queue that owes what `outbox` already owes (from before a restart) and what is
    /// enqueued; it sends them while `run` runs. `metrics`: where the outcome counters go (the
    /// process's backend unless a test gives one).
    public init(
        fetcher: any AdFetcher, outbox: any TrackerOutbox, clock: any EpochClock, settings: Settings = Settings(),
        logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        let engine = Engine(
            fetcher: fetcher, outbox: outbox, clock: clock, settings: settings, logger: logger, metrics: metrics)
        self.engine = engine
    }

    /// Sends and commits until asked to stop (`requestStop`, or `drain`), then stops sending
    /// and writes what is owed: a ping not yet answered stays in the outbox for the next start,
    /// so a stop loses nothing and waits for no tracker. The daemon's service group runs it;
    /// it runs once (a second call returns at once).
    public func run() async {
        guard lifecycle.begin() else { return }
        let engine = self.engine
        await withDiscardingTaskGroup { committing in
            committing.addTask { await engine.commitUntilFinished() }
            // The sender is cancelled alone at the stop, so that deliveries in flight end.
            await withDiscardingTaskGroup { sending in
                sending.addTask {
                    let slots = FetchSlots(max(1, engine.settings.concurrency))
                    await withDiscardingTaskGroup { deliveries in
                        for await ping in engine.pings {
                            deliveries.addTask { await engine.deliver(ping, slots: slots) }
                        }
                    }
                }
                await lifecycle.stopRequested()
                engine.send.finish()
                sending.cancelAll()
            }
            // The committer writes what the deliveries settled, then ends.
            engine.wakes.finish()
        }
        // What comes now is refused; a waiter left (its commit failed) is told.
        let waiters = engine.state.withLock { state in
            state.stopped = true
            state.timerAt = nil
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        await engine.timers.cancelAll()
        for waiter in waiters { waiter.resume(throwing: TrackerQueueStopped()) }
        engine.resumeIdleWaiters()
        lifecycle.end()
    }

    /// Asks `run` to stop; returns at once (`drain` waits for the stop).
    public func requestStop() {
        lifecycle.requestStop()
    }

    /// Hears each try of one ping: its outcome and the HTTP status, when one answered.
    public typealias PingObserver = @Sendable (NoticeTrace.Outcome, Int?) -> Void

    /// Owes each non-empty URL once; returns at once. `committed()` waits for it to be on disk.
    /// `observer`, when given, is asked once per URL owed for who hears of its tries.
    public func enqueue(_ urls: [String], kind: Kind, observer: (() -> PingObserver?)? = nil) {
        let now = engine.clock.nowMilliseconds
        let tooLong = urls.filter { $0.utf8.count > engine.settings.maxURLBytes }.count
        if tooLong > 0 { engine.gaveUp(tooLong, reason: "too_long") }
        let owed = urls.filter { !$0.isEmpty && $0.utf8.count <= engine.settings.maxURLBytes }.map {
            (url: $0, kind: kind, observer: observer?())
        }
        let added = engine.state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            if state.unsaved.isEmpty { state.unsavedSince = now }
            state.unsaved += owed
            state.enqueued += UInt64(owed.count)
            return owed.count
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

    /// Returns once the queue has nothing to do now: each ping enqueued so far delivered (or
    /// waiting in the outbox for its retry's time), and the outcomes written; at once when it
    /// has stopped. Tests await it rather than sleep for "nothing more was sent".
    public func idle() async {
        await engine.idle()
    }

    /// Returns once every ping enqueued before the call is on disk; throws when the outbox could
    /// not be written (the pings stay queued, and are written at the next commit that works).
    public func committed() async throws {
        try await engine.committed()
    }

    /// What is owed now, for the outbox's gauges: what is stored and what is not yet; throws
    /// when the outbox cannot be read.
    public func backlog() async throws -> Backlog {
        let (unsaved, unsavedSince) = engine.state.withLock { state in
            (state.unsaved.count, state.unsaved.isEmpty ? nil : state.unsavedSince)
        }
        let stored = try await engine.outbox.backlog()
        let oldest = [stored.oldest, unsavedSince].compactMap { $0 }.min()
        let now = engine.clock.nowMilliseconds
        return Backlog(
            count: stored.count + unsaved, oldestAge: oldest.map { .milliseconds(max(0, now - $0)) })
    }

    /// Stops `run` and waits until what is owed is written; a queue that never ran writes it
    /// now (it runs, stopped from the start).
    public func drain() async {
        await lifecycle.stopAndWait(running: run)
    }
}

/// A ping enqueued after the queue stopped: it is not owed.
public struct TrackerQueueStopped: Error, CustomStringConvertible {
    public var description: String { "the tracker queue has stopped" }
}
