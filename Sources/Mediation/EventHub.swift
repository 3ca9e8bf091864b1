import Synchronization

/// Hands every ad event to every subscriber whose filter it passes. Each subscriber has its own
/// bounded buffer: one that falls behind it is let go (its stream ends after what it holds, and
/// it is told), never anyone else's events delayed or dropped.
public final class EventHub: Sendable {
    public struct Filter: Sendable {
        public var adUnit: String?
        public var adID: String?

        public init(adUnit: String? = nil, adID: String? = nil) {
            self.adUnit = adUnit
            self.adID = adID
        }

        func passes(_ event: AdEvent) -> Bool {
            (adUnit == nil || adUnit == event.adUnit) && (adID == nil || adID == event.adID)
        }
    }

    private struct Subscriber {
        var filter: Filter
        var continuation: AsyncStream<AdEvent>.Continuation
        var fellBehind: @Sendable () -> Void
    }

    private let subscribers = Mutex<[Int: Subscriber]>([:])
    private let nextID = Atomic<Int>(0)
    /// The last event's sequence number; taken under `subscribers`' lock, so that every
    /// subscriber sees them increasing.
    private let lastSequence = Atomic<UInt64>(0)
    /// Events a subscriber may have waiting unless it says otherwise.
    public static let defaultBuffer = 256

    public init() {}

    /// A stream of the events that pass `filter`, from now on, until the caller stops iterating.
    /// When `buffer` events wait and another comes, the subscriber is let go: `fellBehind` is
    /// called and the stream ends after the events it holds.
    public func subscribe(
        _ filter: Filter, buffer: Int = EventHub.defaultBuffer, fellBehind: @escaping @Sendable () -> Void = {}
    ) -> AsyncStream<AdEvent> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<AdEvent>.makeStream(bufferingPolicy: .bufferingOldest(buffer))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock {
            $0[id] = Subscriber(filter: filter, continuation: continuation, fellBehind: fellBehind)
        }
        return stream
    }

    /// Numbers `event` (its `sequence`, one more than the last) and hands it to every subscriber
    /// its filter passes.
    public func publish(_ event: AdEvent) {
        let behind: [Subscriber] = subscribers.withLock { subscribers in
            var event = event
            event.sequence = lastSequence.add(1, ordering: .relaxed).newValue
            var full: [Int] = []
            for (id, subscriber) in subscribers where subscriber.filter.passes(event) {
                if case .dropped = subscriber.continuation.yield(event) { full.append(id) }
            }
            return full.compactMap { subscribers.removeValue(forKey: $0) }
        }
        // Told outside the lock: finishing a stream runs its termination handler, which takes it.
        for subscriber in behind {
            subscriber.continuation.finish()
            subscriber.fellBehind()
        }
    }

    public var subscriberCount: Int { subscribers.withLock { $0.count } }
}
