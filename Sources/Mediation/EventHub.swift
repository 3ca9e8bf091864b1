import Synchronization

/// Hands every ad event to every subscriber whose filter it passes. A subscriber that falls
/// behind loses its oldest events (each has its own bounded buffer), never anyone else's.
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
    }

    private let subscribers = Mutex<[Int: Subscriber]>([:])
    private let nextID = Atomic<Int>(0)
    /// Events each subscriber may have waiting.
    static let buffer = 1024

    public init() {}

    /// A stream of the events that pass `filter`, from now on, until the caller stops iterating.
    public func subscribe(_ filter: Filter) -> AsyncStream<AdEvent> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<AdEvent>.makeStream(bufferingPolicy: .bufferingNewest(Self.buffer))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = Subscriber(filter: filter, continuation: continuation) }
        return stream
    }

    public func publish(_ event: AdEvent) {
        let targets = subscribers.withLock { $0.values.filter { $0.filter.passes(event) }.map(\.continuation) }
        for continuation in targets { continuation.yield(event) }
    }

    public var subscriberCount: Int { subscribers.withLock { $0.count } }
}
