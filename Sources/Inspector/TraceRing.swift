import DequeModule
import SharedTypes
import Synchronization

/// The inspector's memory: the last traces of ad loads and signals requests, in memory only,
/// at most `limits.maxTraces` of them and about `limits.maxBytes` (the oldest go first), and
/// every live subscriber's stream. Recording takes one lock and never waits for a reader: a
/// subscriber has its own bounded buffer and is let go when it falls behind.
public final class TraceRing: TraceRecorder {
    public struct Limits: Sendable, Equatable {
        /// How many traces are kept; 0 keeps none (the inspector is off).
        public var maxTraces: Int
        /// About how many bytes they may hold.
        public var maxBytes: Int

        public init(maxTraces: Int = 500, maxBytes: Int = 2 << 20) {
            self.maxTraces = maxTraces
            self.maxBytes = maxBytes
        }
    }

    /// Which traces a reader wants; `asker` sees only what it may (`Trace.isVisible`).
    public struct Filter: Sendable {
        public enum Kind: Sendable { case load, signals }

        public var asker: AppIdentity?
        /// Only loads, or only signals requests; nil: both.
        public var kind: Kind?
        public var app: String?
        /// A load's unit (a signals request has none, and is not passed).
        public var adUnit: String?
        /// A load's outcome (`filled`, or its error code).
        public var outcome: String?

        public init(
            asker: AppIdentity?, kind: Kind? = nil, app: String? = nil, adUnit: String? = nil, outcome: String? = nil
        ) {
            self.asker = asker
            self.kind = kind
            self.app = app
            self.adUnit = adUnit
            self.outcome = outcome
        }

        public func passes(_ trace: Trace) -> Bool {
            guard trace.isVisible(to: asker), app == nil || trace.app == app else { return false }
            switch trace {
            case .load(let load):
                return kind != .signals && (adUnit == nil || load.adUnit == adUnit)
                    && (outcome == nil || load.outcome == outcome)
            case .signals:
                return kind != .load && adUnit == nil && outcome == nil
            }
        }
    }

    private struct Subscriber {
        var filter: Filter
        var continuation: AsyncStream<Trace>.Continuation
        var fellBehind: @Sendable () -> Void
    }

    /// A trace, what it counts toward the byte bound, and where a load's notices are noted.
    private struct Kept {
        var trace: Trace
        var bytes: Int
        var notices: NoticeLog?

        /// The trace as it is now: with the notices noted since it was recorded.
        var current: Trace {
            guard let notices, case .load(var load) = trace else { return trace }
            load.notices = notices.notices
            return .load(load)
        }
    }

    private struct State {
        var limits: Limits
        var kept: Deque<Kept> = []
        var bytes = 0
        var lastID: UInt64 = 0
        var subscribers: [Int: Subscriber] = [:]
        var nextSubscriber = 0
    }

    private let state: Mutex<State>

    public init(limits: Limits = Limits()) {
        state = Mutex(State(limits: limits))
    }

    /// The bounds in force; a reload may change them (what is over the new ones goes now).
    public var limits: Limits {
        get { state.withLock { $0.limits } }
        set {
            state.withLock { state in
                state.limits = newValue
                Self.trim(&state)
            }
        }
    }

    public func record(_ trace: LoadTrace, notices: NoticeLog? = nil) {
        keep(Trace.load(trace).clipped(), notices: notices)
    }

    public func record(_ trace: SignalsTrace) { keep(Trace.signals(trace).clipped(), notices: nil) }

    /// Numbers `trace`, keeps it and hands it to each subscriber its filter passes.
    private func keep(_ unnumbered: Trace, notices: NoticeLog?) {
        // A load's notices, a few per bidder, are counted before they come.
        let owing = (unnumbered.load?.bidders.count ?? 0) + (unnumbered.load?.sources.count ?? 0)
        let noticeBytes = notices == nil ? 0 : 128 * (2 * owing + 1)
        var kept = Kept(trace: unnumbered, bytes: unnumbered.estimatedBytes + noticeBytes, notices: notices)
        let behind: [Subscriber] = state.withLock { state in
            guard state.limits.maxTraces > 0 else { return [] }
            state.lastID += 1
            kept.trace.id = state.lastID
            state.kept.append(kept)
            state.bytes += kept.bytes
            Self.trim(&state)
            let trace = kept.current
            var full: [Int] = []
            for (id, subscriber) in state.subscribers where subscriber.filter.passes(trace) {
                if case .dropped = subscriber.continuation.yield(trace) { full.append(id) }
            }
            return full.compactMap { state.subscribers.removeValue(forKey: $0) }
        }
        // Told outside the lock: finishing a stream runs its termination handler, which takes it.
        for subscriber in behind {
            subscriber.continuation.finish()
            subscriber.fellBehind()
        }
    }

    /// Drops the oldest until the bounds hold (the newest always stays, whatever its size).
    private static func trim(_ state: inout State) {
        while state.kept.count > max(state.limits.maxTraces, 0)
            || (state.kept.count > 1 && state.bytes > state.limits.maxBytes)
        {
            state.bytes -= state.kept.removeFirst().bytes
        }
    }

    /// The traces `filter` passes, newest first, at most `limit`.
    public func traces(_ filter: Filter, limit: Int = .max) -> [Trace] {
        state.withLock { state in
            Array(state.kept.reversed().lazy.filter { filter.passes($0.trace) }.prefix(limit).map(\.current))
        }
    }

    /// The trace numbered `id`, if it is kept and `filter` passes it: found by halving, for the
    /// kept ids only increase.
    public func trace(_ id: UInt64, _ filter: Filter) -> Trace? {
        state.withLock { state in
            var (low, high) = (state.kept.startIndex, state.kept.endIndex)
            while low < high {
                let middle = (low + high) / 2
                if state.kept[middle].trace.id < id { low = middle + 1 } else { high = middle }
            }
            guard low < state.kept.endIndex, case let kept = state.kept[low], kept.trace.id == id else { return nil }
            return filter.passes(kept.trace) ? kept.current : nil
        }
    }

    /// Whether a trace would be kept now.
    public var isRecording: Bool { state.withLock { $0.limits.maxTraces > 0 } }

    /// How many traces are kept, and about how many bytes they hold.
    public var usage: (traces: Int, bytes: Int) { state.withLock { ($0.kept.count, $0.bytes) } }

    /// The traces `filter` passes from now on, until the caller stops iterating. When `buffer`
    /// wait and another comes, the subscriber is let go: `fellBehind` is called and the stream
    /// ends after what it holds.
    public func subscribe(
        _ filter: Filter, buffer: Int, fellBehind: @escaping @Sendable () -> Void = {}
    ) -> AsyncStream<Trace> {
        let (stream, continuation) = AsyncStream<Trace>.makeStream(bufferingPolicy: .bufferingOldest(max(buffer, 1)))
        state.withLock { state in
            state.nextSubscriber += 1
            let id = state.nextSubscriber
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
            state.subscribers[id] = Subscriber(filter: filter, continuation: continuation, fellBehind: fellBehind)
        }
        return stream
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}
