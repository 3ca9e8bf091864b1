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

    public init(fetcher: any AdFetcher, settings: Settings = Settings(), logger: Logger) {
        let (stream, continuation) = AsyncStream<Ping>.makeStream(
            bufferingPolicy: .bufferingOldest(max(1, settings.capacity)))
        self.continuation = continuation
        var counters: [String: Counter] = [:]
        for kind in Kind.allCases {
            for outcome in ["fired", "failed", "retried", "dropped"] {
                counters[kind.rawValue + outcome] = Counter(
                    label: "secure_signals_trackers_total", dimensions: [("kind", kind.rawValue), ("outcome", outcome)])
            }
        }
        let outcomes = counters
        self.outcomes = outcomes
        worker = Task {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await ping in stream {
                    if running >= settings.concurrency {
                        await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask {
                        await Self.fire(ping, fetcher: fetcher, settings: settings, logger: logger, outcomes: outcomes)
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
        _ ping: Ping, fetcher: any AdFetcher, settings: Settings, logger: Logger, outcomes: [String: Counter]
    ) async {
        var delay = settings.retryDelay
        for attempt in 1...max(1, settings.attempts) {
            do {
                _ = try await fetcher.fetch(ping.url, timeout: settings.timeout)
                outcomes[ping.kind.rawValue + "fired"]?.increment()
                return
            } catch {
                // A 4xx will not change on a second try.
                let permanent = error.kind == .invalidURL || (error.status.map { (400..<500).contains($0) } ?? false)
                if permanent || attempt == settings.attempts {
                    outcomes[ping.kind.rawValue + "failed"]?.increment()
                    logger.warning(
                        "a tracker failed",
                        metadata: [
                            "kind": "\(ping.kind.rawValue)", "reason": "\(error.kind.rawValue)",
                            "attempts": "\(attempt)",
                        ])
                    return
                }
                outcomes[ping.kind.rawValue + "retried"]?.increment()
                try? await Task.sleep(for: delay)
                delay *= 2
            }
        }
    }
}
