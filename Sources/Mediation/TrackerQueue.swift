import Logging
import Metrics

/// Fires tracker URLs (impressions, clicks, video progress, errors, win and billing notices)
/// in the background: enqueueing never waits, a full queue drops and counts, each URL is tried
/// up to `attempts` times with a growing pause, at most `concurrency` at once. URLs are logged
/// by kind only: they carry ids a log must not keep.
public final class TrackerQueue: Sendable {
    /// What a tracker reports; the metrics' `kind` label.
    public enum Kind: String, Sendable, CaseIterable {
        case impression, click, progress, error, win, loss
    }

    public struct Settings: Sendable, Equatable {
        public var capacity: Int
        public var concurrency: Int
        public var attempts: Int
        public var timeout: Duration
        /// The pause before the second attempt; it doubles for each one after.
        public var retryDelay: Duration

        public init(
            capacity: Int = 10_000, concurrency: Int = 8, attempts: Int = 3, timeout: Duration = .seconds(5),
            retryDelay: Duration = .milliseconds(500)
        ) {
            self.capacity = capacity
            self.concurrency = concurrency
            self.attempts = attempts
            self.timeout = timeout
            self.retryDelay = retryDelay
        }
    }

    private struct Ping: Sendable {
        var url: String
        var kind: Kind
    }

    private let continuation: AsyncStream<Ping>.Continuation
    private let worker: Task<Void, Never>
    private let outcomes: [String: Counter]

    /// `metrics`: where the outcome counters go (the process's backend unless a test gives one).
    public init(
        fetcher: any AdFetcher, settings: Settings = Settings(), logger: Logger,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        let (stream, continuation) = AsyncStream<Ping>.makeStream(
            bufferingPolicy: .bufferingOldest(max(1, settings.capacity)))
        self.continuation = continuation
        var counters: [String: Counter] = [:]
        for kind in Kind.allCases {
            for outcome in ["fired", "failed", "retried", "dropped"] {
                counters[kind.rawValue + outcome] = Counter(
                    label: "secure_signals_trackers_total",
                    dimensions: [("kind", kind.rawValue), ("outcome", outcome)],
                    factory: metrics)
            }
        }
        let outcomes = counters
        self.outcomes = outcomes
        worker = Task {
            let slots = FetchSlots(max(1, settings.concurrency))
            await withTaskGroup(of: Void.self) { group in
                // Pings waiting out a retry's pause hold no fetch slot, but count here: at most
                // `capacity` in hand, the rest wait in the stream's buffer, then are dropped.
                var inHand = 0
                for await ping in stream {
                    if inHand >= max(1, settings.capacity) {
                        await group.next()
                        inHand -= 1
                    }
                    inHand += 1
                    group.addTask {
                        await Self.fire(
                            ping, fetcher: fetcher, slots: slots, settings: settings, logger: logger, outcomes: outcomes
                        )
                    }
                }
            }
        }
    }

    deinit { continuation.finish() }

    /// Queues each non-empty URL once; returns at once.
    public func enqueue(_ urls: [String], kind: Kind) {
        for url in urls where !url.isEmpty {
            if case .dropped = continuation.yield(Ping(url: url, kind: kind)) {
                outcomes[kind.rawValue + "dropped"]?.increment()
            }
        }
    }

    /// Stops taking trackers and waits until those queued have been tried.
    public func drain() async {
        continuation.finish()
        await worker.value
    }

    private static func fire(
        _ ping: Ping, fetcher: any AdFetcher, slots: FetchSlots, settings: Settings, logger: Logger,
        outcomes: [String: Counter]
    ) async {
        let attempts = max(1, settings.attempts)
        var delay = settings.retryDelay
        for attempt in 1...attempts {
            await slots.acquire()
            let failure: AdServerError?
            do {
                _ = try await fetcher.fetch(ping.url, timeout: settings.timeout)
                failure = nil
            } catch {
                failure = error
            }
            await slots.release()
            guard let failure else {
                outcomes[ping.kind.rawValue + "fired"]?.increment()
                return
            }
            // A 4xx will not change on a second try.
            let permanent = failure.kind == .invalidURL || (failure.status.map { (400..<500).contains($0) } ?? false)
            if permanent || attempt == attempts {
                outcomes[ping.kind.rawValue + "failed"]?.increment()
                logger.warning(
                    "a tracker failed",
                    metadata: [
                        "kind": "\(ping.kind.rawValue)", "reason": "\(failure.kind.rawValue)", "attempts": "\(attempt)",
                    ])
                return
            }
            outcomes[ping.kind.rawValue + "retried"]?.increment()
            try? await Task.sleep(for: delay)
            delay *= 2
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
