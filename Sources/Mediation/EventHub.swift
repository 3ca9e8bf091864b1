import DequeModule
import Logging
import SharedTypes
import Synchronization
import Timing

/// Hands every ad event to every subscriber whose filter it passes. Each subscriber has its own
/// bounded buffer: one that falls behind it is let go (its stream ends after what it holds, and
/// it is told), never anyone else's events delayed or dropped. The last events (`retention`)
/// are kept, so that a subscriber resuming after the id it saw last gets those it missed, then
/// the live ones, with none twice and none skipped; with a journal they outlive a restart.
public final class EventHub: Sendable {
    @MemberwiseInit
    public struct Filter: Sendable {
        public var adUnit: String?
        public var adID: String?
        /// The subscribing app: it sees its own events (every app's with `inspect`).
        public var app: AppIdentity? = nil

        func passes(_ event: AdEvent) -> Bool {
            (adUnit == nil || adUnit == event.adUnit) && (adID == nil || adID == event.adID)
                && event.isVisible(to: app)
        }
    }

    private struct Subscriber {
        var filter: Filter
        var continuation: AsyncStream<AdEvent>.Continuation
        var fellBehind: @Sendable () -> Void
    }

    /// The subscribers and the events kept, under one lock: a resuming subscriber is handed
    /// what it missed and registered for what comes next in one step.
    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var kept: Deque<(event: AdEvent, at: Int64)> = []
        /// The last event's sequence number, and the highest the journal has reserved.
        var lastSequence: UInt64 = 0
        var reservedThrough: UInt64 = 0
        /// Numbers a previous run may have handed out but did not journal (it stopped without
        /// closing): a resume from before their end may have missed some.
        var unknownThrough: UInt64 = 0
        /// After a reservation failed: the number from which it is tried again; until then
        /// events are handed out unreserved, as they were before it failed.
        var retryReservationAt: UInt64 = 0
        var unreservedAllowed = false
        /// Events numbered past `reservedThrough`: kept and journaled, handed to subscribers
        /// once the reservation under way covers them (an id a client saw is never reused).
        var held: [AdEvent] = []
        /// Whether a reservation is being written (one at a time).
        var reserving = false

        /// The last number subscribers have been handed (or are being handed) events up to.
        var deliveredThrough: UInt64 { held.first.map { $0.sequence - 1 } ?? lastSequence }
    }

    private let state: Mutex<State>
    private let nextID = Atomic<Int>(0)
    private let retention: EventRetention
    private let clock: any EpochClock
    private let journal: JournalWriter?
    /// The reservation being written, if any (`close` waits for it).
    private let reservations = OwnedTasks<Int>()
    private let logger: Logger
    /// Numbers reserved at a time (one durable write per block).
    static let reservationBlock: UInt64 = 1000
    /// Events a subscriber may have waiting unless it says otherwise.
    public static let defaultBuffer = 256

    /// A hub whose kept events live as long as it does.
    public convenience init(
        retention: EventRetention = EventRetention(), clock: any EpochClock = WallClock(clock: ContinuousClock()),
        logger: Logger = Logger(label: "events")
    ) {
        self.init(initial: State(), journal: nil, retention: retention, clock: clock, logger: logger)
    }

    /// `journal`: where the kept events outlive a restart (read now; their numbers go on).
    public convenience init(
        journal: any EventJournal, retention: EventRetention = EventRetention(),
        clock: any EpochClock = WallClock(clock: ContinuousClock()), logger: Logger = Logger(label: "events")
    ) async {
        var initial = State()
        do {
            // Both read before anything is kept: numbering never restarts below what is kept.
            let kept = try await journal.recent()
            let journaled = kept.last?.event.sequence ?? 0
            let reserved = max(journaled, try await journal.reserved())
            initial.kept = Deque(kept)
            initial.reservedThrough = reserved
            initial.lastSequence = reserved
            if reserved > journaled { initial.unknownThrough = reserved }
        } catch {
            logger.error("the kept events could not be read; numbering starts again", metadata: ["error": "\(error)"])
        }
        self.init(
            initial: initial, journal: JournalWriter(journal: journal, retention: retention, logger: logger),
            retention: retention, clock: clock, logger: logger)
    }

    private init(
        initial: State, journal: JournalWriter?, retention: EventRetention, clock: any EpochClock, logger: Logger
    ) {
        state = Mutex(initial)
        self.retention = retention
        self.clock = clock
        self.journal = journal
        self.logger = logger
    }

    /// Journals what is published, in batches, until asked to stop (`requestStop` or `close`):
    /// the daemon's service group runs it. Without a journal it returns at once.
    public func run() async {
        await journal?.run()
    }

    /// Asks `run` to write what is pending and stop; returns at once (`close` waits).
    public func requestStop() {
        journal?.requestStop()
    }

    /// Writes what is not yet journaled and stops the journal's writer; the numbers reserved
    /// and not handed out are given back, so that a clean stop leaves no gap. Nothing is
    /// reserved after it: an event published later is kept and journaled, never handed out.
    public func close() async {
        await journal?.close()
        guard let writer = journal else { return }
        await reservations.waitForAll()
        let last = state.withLock { state in
            // From here a publish holds its event: its number is past what is given back.
            state.reserving = true
            state.reservedThrough = state.lastSequence
            return state.lastSequence
        }
        reserved(through: last, failure: await Self.outcome { try await writer.journal.reserve(through: last) })
    }

    /// Writes `through` as the reserved number, off the caller's thread (one reservation at a
    /// time: `reserving`), then hands out the held events it covers.
    private func beginReservation(through: UInt64) {
        guard let writer = journal else { return }
        reservations.start { [self] in
            reserved(
                through: through, failure: await Self.outcome { try await writer.journal.reserve(through: through) })
        }
    }

    /// The error `operation` threw, if any.
    private static func outcome(_ operation: () async throws -> Void) async -> (any Error)? {
        do {
            try await operation()
            return nil
        } catch {
            return error
        }
    }

    /// After a reservation through `through` was written (or failed): the held events it
    /// covers go out, and the next block is asked for if some are still held.
    private func reserved(through: UInt64, failure: (any Error)?) {
        let (behind, next): ([Subscriber], UInt64?) = state.withLock { state in
            state.reserving = false
            if let failure {
                // Tried again a hundred events later; meanwhile events go out as they come.
                state.retryReservationAt = state.lastSequence + 100
                state.unreservedAllowed = true
                logger.warning("event numbers could not be reserved", metadata: ["error": "\(failure)"])
            } else {
                state.reservedThrough = through
                state.unreservedAllowed = false
            }
            let (allowed, covered) = (state.unreservedAllowed, state.reservedThrough)
            let release = state.held.prefix { allowed || $0.sequence <= covered }
            state.held.removeFirst(release.count)
            var next: UInt64?
            if !state.held.isEmpty {
                state.reserving = true
                next = state.lastSequence + Self.reservationBlock - 1
            }
            return (release.flatMap { deliver($0, in: &state) }, next)
        }
        finish(behind)
        if let next { beginReservation(through: next) }
    }

    /// A stream of the events that pass `filter`, from now on, until the caller stops iterating;
    /// with `after` (the id of the last event the caller saw), first the kept ones after it,
    /// with `events_missed` where some after it are no longer kept (or were never journaled by
    /// a run that died). When `buffer` events wait and another comes, the subscriber is let go:
    /// `fellBehind` is called and the stream ends after the events it holds.
    public func subscribe(
        _ filter: Filter, after: UInt64? = nil, buffer: Int = EventHub.defaultBuffer,
        fellBehind: @escaping @Sendable () -> Void = {}
    ) -> AsyncStream<AdEvent> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        return state.withLock { state in
            var replay: [AdEvent] = []
            if let after, after != state.lastSequence {
                let delivered = state.deliveredThrough
                replay = Array(
                    state.kept.lazy.map(\.event).filter {
                        $0.sequence > after && $0.sequence <= delivered && filter.passes($0)
                    })
                for (gap, seen) in Self.gaps(after: after, in: state) {
                    let oldest =
                        state.kept.first(where: { $0.event.sequence > gap })?.event.sequence ?? state.lastSequence + 1
                    var missed = AdEvent(
                        name: .eventsMissed, adID: nil, adUnit: filter.adUnit ?? "",
                        fields: [
                            "after": .integer(Int64(clamping: seen)),
                            "first_available": .integer(Int64(clamping: oldest)),
                        ])
                    missed.sequence = oldest - 1
                    replay.insert(missed, at: replay.firstIndex { $0.sequence > gap } ?? replay.endIndex)
                }
            }
            let (stream, continuation) = AsyncStream<AdEvent>.makeStream(
                bufferingPolicy: .bufferingOldest(buffer + replay.count))
            for event in replay { continuation.yield(event) }
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
            state.subscribers[id] = Subscriber(filter: filter, continuation: continuation, fellBehind: fellBehind)
            return stream
        }
    }

    /// Where a subscriber resuming after `after` may have missed events: after an id this
    /// daemon never gave (checked first: no arithmetic on it), or one older than what is kept;
    /// and at a previous run's unjournaled tail, when kept events come before it. Each gap: the
    /// number after which it starts, and the last number the subscriber has seen by then.
    private static func gaps(after: UInt64, in state: State) -> [(gap: UInt64, seen: UInt64)] {
        guard after <= state.lastSequence else { return [(after, after)] }
        let firstKept = state.kept.first?.event.sequence ?? state.lastSequence + 1
        var gaps: [(gap: UInt64, seen: UInt64)] = []
        if after + 1 < firstKept { gaps.append((after, after)) }
        if after < state.unknownThrough, firstKept <= state.unknownThrough {
            let lastBefore = state.kept.last(where: { $0.event.sequence <= state.unknownThrough })?.event.sequence
            gaps.append((state.unknownThrough, max(after, lastBefore ?? after)))
        }
        return gaps
    }

    /// Numbers `event` (its `sequence`, one more than the last), keeps it, and hands it to every
    /// subscriber its filter passes: at once while its number is reserved, else once the
    /// reservation under way is written. A block is reserved ahead, when half the last one is
    /// used, so that events seldom wait.
    public func publish(_ event: AdEvent) {
        let now = clock.nowMilliseconds
        let (behind, reserve): ([Subscriber], UInt64?) = state.withLock { state in
            var event = event
            state.lastSequence += 1
            event.sequence = state.lastSequence
            state.kept.append((event, now))
            let horizon = retention.horizon(at: now)
            while let first = state.kept.first, state.kept.count > retention.count || first.at < horizon {
                state.kept.removeFirst()
            }
            guard let writer = journal else { return (deliver(event, in: &state), nil) }
            writer.add(event, at: now)
            var reserve: UInt64?
            if !state.reserving, state.lastSequence + Self.reservationBlock / 2 > state.reservedThrough,
                state.lastSequence >= state.retryReservationAt
            {
                state.reserving = true
                reserve = state.lastSequence + Self.reservationBlock - 1
            }
            guard state.held.isEmpty, state.unreservedAllowed || event.sequence <= state.reservedThrough else {
                state.held.append(event)
                return ([], reserve)
            }
            return (deliver(event, in: &state), reserve)
        }
        finish(behind)
        if let reserve { beginReservation(through: reserve) }
    }

    /// Hands `event` to every subscriber its filter passes; answers those it let go (full).
    private func deliver(_ event: AdEvent, in state: inout State) -> [Subscriber] {
        var full: [Int] = []
        for (id, subscriber) in state.subscribers where subscriber.filter.passes(event) {
            if case .dropped = subscriber.continuation.yield(event) { full.append(id) }
        }
        return full.compactMap { state.subscribers.removeValue(forKey: $0) }
    }

    /// Told outside the lock: finishing a stream runs its termination handler, which takes it.
    private func finish(_ behind: [Subscriber]) {
        for subscriber in behind {
            subscriber.continuation.finish()
            subscriber.fellBehind()
        }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

/// Writes published events to the journal in batches, behind the stream: what is published
/// while one batch is written goes in the next. It writes while `run` runs.
private final class JournalWriter: Sendable {
    private final class Pending: Sendable {
        let events = Mutex<[(event: AdEvent, at: Int64)]>([])
    }

    private let pending = Pending()
    let journal: any EventJournal
    private let retention: EventRetention
    private let logger: Logger
    private let wakes: AsyncStream<Void>.Continuation
    private let wakeups: AsyncStream<Void>
    private let lifecycle = RunOnce()

    init(journal: any EventJournal, retention: EventRetention, logger: Logger) {
        (wakeups, wakes) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.journal = journal
        self.retention = retention
        self.logger = logger
    }

    /// Writes each batch as it comes until asked to stop, then what is pending.
    func run() async {
        guard lifecycle.begin() else { return }
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await _ in wakeups { await writePending() }
            }
            await lifecycle.stopRequested()
            wakes.finish()
        }
        await writePending()
        lifecycle.end()
    }

    func requestStop() {
        lifecycle.requestStop()
    }

    /// Called under the hub's lock, so that batches keep the events' order.
    func add(_ event: AdEvent, at: Int64) {
        pending.events.withLock { $0.append((event, at)) }
        wakes.yield()
    }

    /// Writes what is pending, then stops; what was published after the run ended (a
    /// background load's events while the adapters stop) is written too.
    func close() async {
        await lifecycle.stopAndWait(running: run)
        await writePending()
    }

    private func writePending() async {
        let batch = pending.events.withLock { events in
            defer { events = [] }
            return events
        }
        guard let newest = batch.last else { return }
        do {
            try await journal.append(batch, keep: retention.count, since: retention.horizon(at: newest.at))
        } catch {
            logger.warning("events could not be journaled", metadata: ["error": "\(error)"])
        }
    }
}
