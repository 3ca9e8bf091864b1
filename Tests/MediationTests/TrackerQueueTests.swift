import Logging
import Mediation
import Metrics
import MetricsTestKit
import Synchronization
import Testing

/// The tracker queue's promises: each URL tried until it answers or its tries run out, a 4xx
/// never retried, a full queue dropping rather than waiting, everything tried before a drain ends.
struct TrackerQueueTests {
    /// An ad server that answers each URL as the test says, and counts what it was asked.
    final class Server: AdFetcher {
        let answers: [String: [Int]]
        let delay: Duration
        private let asked = Mutex<[String: Int]>([:])
        private let order = Mutex<[String]>([])

        /// `answers[url]`: the statuses of its successive tries (the last repeats); 200 otherwise.
        init(_ answers: [String: [Int]] = [:], delay: Duration = .zero) {
            self.answers = answers
            self.delay = delay
        }

        func send(_ request: AdServerRequest) async throws(AdServerError) -> AdServerResponse {
            order.withLock { $0.append(request.url) }
            let attempt = asked.withLock { counts in
                counts[request.url, default: 0] += 1
                return counts[request.url, default: 1]
            }
            if delay > .zero { try? await Task.sleep(for: delay) }
            let statuses = answers[request.url] ?? [200]
            return AdServerResponse(status: statuses[min(attempt, statuses.count) - 1])
        }

        func count(_ url: String) -> Int { asked.withLock { $0[url] ?? 0 } }

        /// Every try, in the order they came.
        var tries: [String] { order.withLock { $0 } }
    }

    static let settings = TrackerQueue.Settings(attempts: 3, retryDelay: .milliseconds(5))
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The count of `secure_signals_trackers_total` with these labels.
    static func count(_ metrics: TestMetrics, _ kind: String, _ outcome: String) -> Int64 {
        (try? metrics.expectCounter("secure_signals_trackers_total", [("kind", kind), ("outcome", outcome)]).totalValue)
            ?? -1
    }

    @Test func aFailingTrackerIsRetriedUntilItAnswersAndA4xxIsNot() async {
        let server = Server(["http://t/flaky": [503, 502, 200], "http://t/down": [500], "http://t/gone": [404]])
        let metrics = TestMetrics()
        let queue = TrackerQueue(fetcher: server, settings: Self.settings, logger: Self.logger, metrics: metrics)
        queue.enqueue(["http://t/ok", "http://t/flaky", "http://t/down", "http://t/gone", ""], kind: .impression)
        await queue.drain()
        #expect(server.count("http://t/ok") == 1)
        #expect(server.count("http://t/flaky") == 3)
        #expect(server.count("http://t/down") == 3)
        #expect(server.count("http://t/gone") == 1)
        #expect(server.count("") == 0)
        // ok and flaky fired; down and gone failed; flaky twice and down twice retried.
        #expect(Self.count(metrics, "impression", "fired") == 2)
        #expect(Self.count(metrics, "impression", "failed") == 2)
        #expect(Self.count(metrics, "impression", "retried") == 4)
    }

    @Test func aTrackerWaitingToRetryHoldsNoFetchSlot() async {
        let server = Server(["http://t/down": [500]])
        let queue = TrackerQueue(
            fetcher: server, settings: .init(concurrency: 1, attempts: 3, retryDelay: .milliseconds(300)),
            logger: Self.logger)
        queue.enqueue(["http://t/down", "http://t/ok"], kind: .impression)
        await queue.drain()
        // The healthy tracker goes while the failing one waits, not after its three tries.
        #expect(server.tries == ["http://t/down", "http://t/ok", "http://t/down", "http://t/down"])
    }

    @Test func aFullQueueDropsInsteadOfWaiting() async {
        // Slow enough that the worker takes at most two URLs while the 200 are enqueued.
        let server = Server(delay: .milliseconds(200))
        let metrics = TestMetrics()
        let queue = TrackerQueue(
            fetcher: server, settings: .init(capacity: 2, concurrency: 1, retryDelay: .milliseconds(5)),
            logger: Self.logger, metrics: metrics)
        let urls = (0..<200).map { "http://t/\($0)" }
        queue.enqueue(urls, kind: .click)
        await queue.drain()
        let fired = urls.filter { server.count($0) == 1 }.count
        // At most the two the stream buffers, the two the worker holds, and the one in its hand.
        #expect(fired >= 2 && fired <= 5, "\(fired)")
        #expect(urls.allSatisfy { server.count($0) <= 1 })
        #expect(Self.count(metrics, "click", "dropped") == Int64(200 - fired))
        #expect(Self.count(metrics, "click", "fired") == Int64(fired))
    }
}

@Test func redactedURLsKeepTheServerAndPathButNotTheQuery() {
    #expect(
        redactedURL("https://user:pw@ads.example:8443/win/notice?price=1.5&id=9#f")
            == "https://ads.example:8443/win/notice")
    #expect(redactedURL("http://127.0.0.1/t") == "http://127.0.0.1/t")
    #expect(redactedURL("not a url?secret=1") == "not a url")
}
