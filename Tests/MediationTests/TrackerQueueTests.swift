import Logging
import Mediation
import Metrics
import MetricsTestKit
import SharedTypes
import StateStore
import Synchronization
import TestSupport
import Testing
import Timing

/// The tracker queue's promises: what it owes on disk before `committed()` returns, each URL
/// tried with backoff until it answers or `maxAge` passes, a 4xx never retried, and what is
/// still owed at a stop sent after the restart.
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

    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The count of `secure_signals_trackers_total` with these labels.
    static func count(_ metrics: TestMetrics, _ kind: String, _ outcome: String) -> Int64 {
        (try? metrics.expectCounter("secure_signals_trackers_total", [("kind", kind), ("outcome", outcome)]).totalValue)
            ?? 0
    }

    /// A queue on a real SQLite file (in `directory`, or in memory) and a clock the test moves.
    static func queue(
        _ server: Server, clock: ManualClock, directory: TemporaryDirectory? = nil,
        settings: TrackerQueue.Settings = .init(retryDelay: .seconds(1)), metrics: TestMetrics = TestMetrics(),
        startingAt start: Int64 = 1_000_000
    ) async throws -> TrackerQueue {
        let database =
            if let directory { try await StateDatabase.open(directory: directory.url) } else { StateDatabase() }
        return TrackerQueue(
            fetcher: server, outbox: SQLiteTrackerOutbox(database), clock: WallClock(clock: clock, start: start),
            settings: settings, logger: logger, metrics: metrics
        ).started()
    }

    @Test func aFailingTrackerIsRetriedWithBackoffUntilItAnswersAndA4xxIsNot() async throws {
        let server = Server(["http://t/flaky": [503, 502, 200], "http://t/down": [500], "http://t/gone": [404]])
        let metrics = TestMetrics()
        let clock = ManualClock()
        let queue = try await Self.queue(server, clock: clock, metrics: metrics)
        queue.enqueue(["http://t/ok", "http://t/flaky", "http://t/down", "http://t/gone", ""], kind: .impression)
        try await queue.committed()
        // Each failure is counted once its next try is set: then a clock move reaches it.
        try await waitUntil { server.tries.count == 4 && Self.count(metrics, "impression", "retried") == 2 }
        #expect(Self.count(metrics, "impression", "fired") == 1)
        #expect(Self.count(metrics, "impression", "failed") == 1)
        // The second try comes within retryDelay (1 s, drawn between half and all of it) ...
        clock.advance(by: .seconds(1))
        try await waitUntil { server.tries.count == 6 && Self.count(metrics, "impression", "retried") == 4 }
        // ... the third within twice that.
        clock.advance(by: .seconds(2))
        try await waitUntil { server.count("http://t/flaky") == 3 && server.count("http://t/down") == 3 }
        #expect(server.count("http://t/ok") == 1)
        #expect(server.count("http://t/gone") == 1)
        #expect(server.count("") == 0)
        try await waitUntil { Self.count(metrics, "impression", "fired") == 2 }
        // flaky after each of its two failures, down after each of its three.
        #expect(Self.count(metrics, "impression", "retried") == 5)
        // Only the one still down is owed.
        try await waitUntil { (try? await queue.backlog().count) == 1 }
        await queue.drain()
    }

    @Test func aPingOwedPastMaxAgeIsDroppedAndCounted() async throws {
        let server = Server(["http://t/down": [500]])
        let metrics = TestMetrics()
        let clock = ManualClock()
        let queue = try await Self.queue(
            server, clock: clock, settings: .init(retryDelay: .seconds(4), maxAge: .seconds(10)), metrics: metrics)
        queue.enqueue(["http://t/down"], kind: .click)
        try await queue.committed()
        var advanced = 0
        while Self.count(metrics, "click", "dropped") == 0 {
            try await waitUntil { clock.sleeping == 1 || Self.count(metrics, "click", "dropped") == 1 }
            clock.advance(by: .seconds(4))
            advanced += 4
            #expect(advanced <= 20, "still owed after \(advanced) s")
            if advanced > 20 { break }
        }
        // Tried at 0 and 2-4 s; the next pause (4-8 s) would pass 10 s: given up, not owed.
        #expect((2...3).contains(server.count("http://t/down")))
        try await waitUntil { (try? await queue.backlog().count) == 0 }
        await queue.drain()
    }

    @Test func whatIsOwedIsOnDiskWhenCommittedReturnsAndSentAfterARestart() async throws {
        let directory = try TemporaryDirectory()
        // Each tracker takes 3 s to answer: a busy machine's second connection still reads the
        // pings as untried (it took longer than 300 ms to open under load).
        let down = Server(["http://t/1": [503], "http://t/2": [503], "http://t/3": [503]], delay: .seconds(3))
        let first = try await Self.queue(down, clock: ManualClock(), directory: directory)
        first.enqueue(["http://t/1", "http://t/2"], kind: .impression)
        first.enqueue(["http://t/3"], kind: .click)
        try await first.committed()
        // On disk now, read through another connection, before any tracker has answered.
        let owed = try await SQLiteTrackerOutbox(StateDatabase.open(directory: directory.url)).untried(
            after: 0, limit: 100)
        #expect(owed.map(\.url) == ["http://t/1", "http://t/2", "http://t/3"])
        #expect(owed.map(\.kind) == [.impression, .impression, .click])
        try await waitUntil { down.tries.count == 3 }
        await first.drain()

        // A minute later: each ping's next try (a second after its first) is due.
        let up = Server()
        let second = try await Self.queue(up, clock: ManualClock(), directory: directory, startingAt: 1_060_000)
        try await waitUntil { up.tries.sorted() == ["http://t/1", "http://t/2", "http://t/3"] }
        try await waitUntil { (try? await second.backlog().count) == 0 }
        await second.drain()
        #expect(try await SQLiteTrackerOutbox(StateDatabase.open(directory: directory.url)).backlog().count == 0)
    }

    @Test func afterADrainNothingIsTakenAndNoCallerWaits() async throws {
        let server = Server()
        let queue = try await Self.queue(server, clock: ManualClock())
        await queue.drain()
        queue.enqueue(["http://t/late"], kind: .click)
        try await queue.committed()
        #expect(try await queue.backlog().count == 0 && server.tries.isEmpty)
    }

    @Test func aQueueThatNeverRanWritesWhatItOwesAtItsDrainAndSendsNothing() async throws {
        let directory = try TemporaryDirectory()
        let server = Server()
        let database = try await StateDatabase.open(directory: directory.url)
        // Not started: as when the daemon stops before its service group runs the queue.
        let queue = TrackerQueue(
            fetcher: server, outbox: SQLiteTrackerOutbox(database),
            clock: WallClock(clock: ManualClock(), start: 1_000_000), logger: Self.logger)
        queue.enqueue(["http://t/owed"], kind: .impression)
        await queue.drain()
        #expect(server.tries.isEmpty)
        let owed = try await SQLiteTrackerOutbox(StateDatabase.open(directory: directory.url)).untried(
            after: 0, limit: 10)
        #expect(owed.map(\.url) == ["http://t/owed"])
        // A second drain, and a run after the drain, return at once.
        await queue.drain()
        await queue.run()
    }

    @Test func aPingPastItsMaxAgeAtARestartIsDroppedUntried() async throws {
        let directory = try TemporaryDirectory()
        let settings = TrackerQueue.Settings(retryDelay: .seconds(1), maxAge: .seconds(10))
        let down = Server(["http://t/old": [503]])
        let first = try await Self.queue(down, clock: ManualClock(), directory: directory, settings: settings)
        first.enqueue(["http://t/old"], kind: .impression)
        try await first.committed()
        try await waitUntil { down.tries.count == 1 }
        await first.drain()
        // A minute later it is past its 10 s: given up without another try.
        let metrics = TestMetrics()
        let up = Server()
        let second = try await Self.queue(
            up, clock: ManualClock(), directory: directory, settings: settings, metrics: metrics, startingAt: 1_060_000)
        try await waitUntil { Self.count(metrics, "impression", "dropped") == 1 }
        try await waitUntil { (try? await second.backlog().count) == 0 }
        #expect(up.tries.isEmpty)
        await second.drain()
    }

    /// The SQLite outbox, made to fail while `failing` is set.
    final class FlakyOutbox: TrackerOutbox {
        let real = SQLiteTrackerOutbox(StateDatabase())
        let failing = Mutex(false)

        struct DiskFull: Error {}

        func commit(_ commit: OutboxCommit) async throws -> OutboxCommitted {
            if failing.withLock({ $0 }) { throw DiskFull() }
            return try await real.commit(commit)
        }

        func untried(after id: Int64, limit: Int) async throws -> [OwedPing] {
            try await real.untried(after: id, limit: limit)
        }
        func untriedCount() async throws -> Int { try await real.untriedCount() }
        func due(by time: Int64, limit: Int) async throws -> [OwedPing] {
            try await real.due(by: time, limit: limit)
        }
        func nextDue(after time: Int64) async throws -> Int64? { try await real.nextDue(after: time) }
        func backlog() async throws -> (count: Int, oldest: Int64?) { try await real.backlog() }
    }

    @Test func aCommitThatFailsFailsItsCallersAndThePingsGoAtTheNextOneThatWorks() async throws {
        let server = Server()
        let outbox = FlakyOutbox()
        outbox.failing.withLock { $0 = true }
        let clock = ManualClock()
        let queue = TrackerQueue(
            fetcher: server, outbox: outbox, clock: WallClock(clock: clock, start: 1_000_000), logger: Self.logger
        ).started()
        queue.enqueue(["http://t/1"], kind: .impression)
        await #expect(throws: FlakyOutbox.DiskFull.self) { try await queue.committed() }
        #expect(server.tries.isEmpty, "nothing is sent before it is stored")
        #expect(try await queue.backlog().count == 1, "still owed, in memory")
        // With no call to wake it, the queue tries again a second later.
        outbox.failing.withLock { $0 = false }
        try await waitUntil { clock.sleeping >= 1 }
        clock.advance(by: .seconds(1))
        try await waitUntil { server.tries == ["http://t/1"] }
        queue.enqueue(["http://t/2"], kind: .impression)
        try await queue.committed()
        try await waitUntil { Set(server.tries) == ["http://t/1", "http://t/2"] }
        await queue.drain()
    }

    @Test func aBacklogPastTheWindowWaitsInTheOutboxAndIsTakenOldestFirst() async throws {
        let directory = try TemporaryDirectory()
        let urls = (1...7).map { "http://t/\($0)" }
        let down = Server(Dictionary(uniqueKeysWithValues: urls.map { ($0, [503]) }))
        let first = try await Self.queue(down, clock: ManualClock(), directory: directory)
        first.enqueue(urls, kind: .impression)
        try await first.committed()
        await first.drain()
        let up = Server()
        let second = try await Self.queue(
            up, clock: ManualClock(), directory: directory, settings: .init(concurrency: 1, window: 2),
            startingAt: 1_060_000)
        // All seven owed, two of them in hand (one may have settled already).
        #expect((6...7).contains(try await second.backlog().count))
        try await waitUntil { up.tries.count == 7 }
        #expect(Set(up.tries) == Set(urls))
        try await waitUntil { (try? await second.backlog().count) == 0 }
        await second.drain()
    }

    @Test func pingsWaitingToRetryWaitInTheOutboxAndLeaveTheWindowToOthers() async throws {
        let dead = (1...4).map { "http://t/dead/\($0)" }
        let server = Server(Dictionary(uniqueKeysWithValues: dead.map { ($0, [503]) }))
        let metrics = TestMetrics()
        let clock = ManualClock()
        let queue = try await Self.queue(
            server, clock: clock, settings: .init(concurrency: 2, retryDelay: .seconds(1), window: 4), metrics: metrics)
        queue.enqueue(dead, kind: .impression)
        try await queue.committed()
        try await waitUntil { Self.count(metrics, "impression", "retried") == 4 }
        // The window holds four, all failed; a fifth ping still goes, with no clock move.
        queue.enqueue(["http://t/ok"], kind: .click)
        try await queue.committed()
        try await waitUntil { server.count("http://t/ok") == 1 }
        #expect(dead.allSatisfy { server.count($0) == 1 })
        // Their next tries come from the outbox when due: within a second.
        clock.advance(by: .seconds(1))
        try await waitUntil { dead.allSatisfy { server.count($0) == 2 } }
        #expect(try await queue.backlog().count == 4)
        await queue.drain()
    }

    @Test func retriesStoredAtAStopAreSentAfterTheRestartWhenDueNotBefore() async throws {
        let directory = try TemporaryDirectory()
        let urls = (1...6).map { "http://t/\($0)" }
        let down = Server(Dictionary(uniqueKeysWithValues: urls.map { ($0, [503]) }))
        let metrics = TestMetrics()
        let first = try await Self.queue(down, clock: ManualClock(), directory: directory, metrics: metrics)
        first.enqueue(urls, kind: .impression)
        try await first.committed()
        let outbox = SQLiteTrackerOutbox(try await StateDatabase.open(directory: directory.url))
        try await waitUntil { (try? await outbox.due(by: .max, limit: 10).count) == 6 }
        await first.drain()
        // Restarted at once, with a window of 2 and one slot: nothing is due yet ...
        let up = Server()
        let clock = ManualClock()
        let second = try await Self.queue(
            up, clock: clock, directory: directory, settings: .init(concurrency: 1, window: 2))
        try await waitUntil { clock.sleeping == 1 }
        #expect(up.tries.isEmpty)
        // ... then one move of the clock past their pauses sends all six, two at a time.
        clock.advance(by: .seconds(1))
        try await waitUntil { up.tries.count == 6 }
        #expect(Set(up.tries) == Set(urls))
        try await waitUntil { (try? await second.backlog().count) == 0 }
        await second.drain()
    }

    @Test func dueRetriesOfADeadTrackerQueueAheadOfAFreshPingOnlyAFew() async throws {
        let dead = (1...20).map { "http://t/dead/\($0)" }
        let server = Server(
            Dictionary(uniqueKeysWithValues: dead.map { ($0, [503]) }), delay: .milliseconds(20))
        let metrics = TestMetrics()
        let clock = ManualClock()
        let queue = try await Self.queue(
            server, clock: clock, settings: .init(concurrency: 1, retryDelay: .seconds(1)), metrics: metrics)
        queue.enqueue(dead, kind: .impression)
        try await queue.committed()
        try await waitUntil { Self.count(metrics, "impression", "retried") == 20 }
        clock.advance(by: .seconds(1))
        try await waitUntil { server.tries.count > 20 }
        queue.enqueue(["http://t/ok"], kind: .click)
        try await queue.committed()
        try await waitUntil { server.count("http://t/ok") == 1 }
        // At most twice the one slot of retries were in hand when it came.
        let ahead = try #require(server.tries.firstIndex(of: "http://t/ok")) - 20
        #expect(ahead <= 4, "\(ahead) retries went first")
        await queue.drain()
    }

    /// Each ping's observer hears of its own tries: pings of one URL are told apart, one the
    /// outbox gave up in its own commit (`max_owed`) hears so, and a 503 then 204 reads as
    /// retrying then sent, with the last status.
    @Test func eachPingsObserverHearsOfItsOwnTries() async throws {
        let server = Server(["http://t/notice": [503, 204]])
        let clock = ManualClock()
        let queue = try await Self.queue(
            server, clock: clock, settings: .init(retryDelay: .seconds(1), maxOwed: 1))
        let log = NoticeLog()
        let source = NoticeLog.Source(log: log, network: "openrtb", parameter: "best")
        queue.enqueue(["http://t/notice", "http://t/notice"], kind: .win, observer: source.observer(.win))
        try await queue.committed()
        try await waitUntil { log.notices.map(\.outcome) == [.givenUp, .retrying] && clock.sleeping == 1 }
        #expect(log.notices[1].status == 503 && log.notices[1].attempts == 1)
        #expect(log.notices[0].attempts == 0, "given up before any try")
        clock.advance(by: .seconds(1))
        try await waitUntil { log.notices[1].outcome == .sent }
        #expect(log.notices[1].status == 204 && log.notices[1].attempts == 2)
        #expect(server.count("http://t/notice") == 2, "the one kept, tried twice")
        await queue.drain()
    }

    @Test func aTrackerWaitingToRetryHoldsNoFetchSlot() async throws {
        let server = Server(["http://t/down": [500]])
        let clock = ManualClock()
        let queue = try await Self.queue(server, clock: clock, settings: .init(concurrency: 1, retryDelay: .seconds(1)))
        queue.enqueue(["http://t/down", "http://t/ok"], kind: .impression)
        try await queue.committed()
        // The healthy tracker goes while the failing one waits out its pause.
        try await waitUntil { server.tries == ["http://t/down", "http://t/ok"] && clock.sleeping == 1 }
        await queue.drain()
    }

    /// A dead tracker against `trackers.max_owed`: the outbox keeps the newest pings up to the
    /// bound, and gives up the oldest, counted.
    @Test func aDeadTrackersBacklogStopsAtMaxOwedAndTheOldestAreGivenUp() async throws {
        let urls = (1...12).map { "http://t/dead-\($0)" }
        let server = Server(Dictionary(uniqueKeysWithValues: urls.map { ($0, [503]) }))
        let metrics = TestMetrics()
        let queue = try await Self.queue(
            server, clock: ManualClock(), settings: .init(retryDelay: .seconds(60), maxOwed: 5), metrics: metrics)
        for url in urls {
            queue.enqueue([url], kind: .impression)
            try await queue.committed()
        }
        #expect(try await queue.backlog().count == 5)
        let givenUp = try metrics.expectCounter("secure_signals_tracker_given_up_total", [("reason", "outbox_full")])
        #expect(givenUp.totalValue == 7)
        // A URL over trackers.max_url_bytes is not owed at all.
        queue.enqueue(["http://t/" + String(repeating: "x", count: 20_000)], kind: .click)
        try await queue.committed()
        #expect(try await queue.backlog().count == 5)
        let tooLong = try metrics.expectCounter("secure_signals_tracker_given_up_total", [("reason", "too_long")])
        #expect(tooLong.totalValue == 1)
        await queue.drain()
    }
}

@Test func redactedURLsKeepTheServerAndPathButNotTheQuery() {
    #expect(
        redactedURL("https://user:pw@ads.example:8443/win/notice?price=1.5&id=9#f")
            == "https://ads.example:8443/win/notice")
    #expect(redactedURL("http://127.0.0.1/t") == "http://127.0.0.1/t")
    #expect(redactedURL("not a url?secret=1") == "not a url")
}
