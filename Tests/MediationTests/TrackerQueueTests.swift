import Logging
import Mediation
import Metrics
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

        /// `answers[url]`: the statuses of its successive tries (the last repeats); 200 otherwise.
        init(_ answers: [String: [Int]] = [:], delay: Duration = .zero) {
            self.answers = answers
            self.delay = delay
        }

        func send(_ request: AdServerRequest) async throws(AdServerError) -> AdServerResponse {
            let attempt = asked.withLock { counts in
                counts[request.url, default: 0] += 1
                return counts[request.url, default: 1]
            }
            if delay > .zero { try? await Task.sleep(for: delay) }
            let statuses = answers[request.url] ?? [200]
            return AdServerResponse(status: statuses[min(attempt, statuses.count) - 1])
        }

        func count(_ url: String) -> Int { asked.withLock { $0[url] ?? 0 } }
    }

    static let settings = TrackerQueue.Settings(attempts: 3, retryDelay: .milliseconds(5))
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func aFailingTrackerIsRetriedUntilItAnswersAndA4xxIsNot() async {
        let server = Server(["http://t/flaky": [503, 502, 200], "http://t/down": [500], "http://t/gone": [404]])
        let queue = TrackerQueue(fetcher: server, settings: Self.settings, logger: Self.logger)
        queue.enqueue(["http://t/ok", "http://t/flaky", "http://t/down", "http://t/gone", ""], kind: .impression)
        await queue.drain()
        #expect(server.count("http://t/ok") == 1)
        #expect(server.count("http://t/flaky") == 3)
        #expect(server.count("http://t/down") == 3)
        #expect(server.count("http://t/gone") == 1)
        #expect(server.count("") == 0)
    }

    @Test func aFullQueueDropsInsteadOfWaiting() async {
        // Slow enough that the worker takes at most two URLs while the 200 are enqueued.
        let server = Server(delay: .milliseconds(200))
        let queue = TrackerQueue(
            fetcher: server, settings: .init(capacity: 2, concurrency: 1, retryDelay: .milliseconds(5)),
            logger: Self.logger)
        let urls = (0..<200).map { "http://t/\($0)" }
        queue.enqueue(urls, kind: .click)
        await queue.drain()
        let fired = urls.filter { server.count($0) == 1 }.count
        // At most the two queued and the one or two already taken by the worker.
        #expect(fired >= 2 && fired <= 4, "\(fired)")
        #expect(urls.allSatisfy { server.count($0) <= 1 })
    }
}
