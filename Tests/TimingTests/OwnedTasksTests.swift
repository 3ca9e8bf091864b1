import Synchronization
import Testing

@testable import Timing

/// The tasks a piece owns: replaced, cancelled and waited for as their owner says, none after
/// its stop.
struct OwnedTasksTests {
    /// What the tasks of a test report: each name once it started, then how it ended.
    final class Journal: Sendable {
        let entries = Mutex<[String]>([])
        let started: AsyncStream<String>
        private let start: AsyncStream<String>.Continuation

        init() { (started, start) = AsyncStream<String>.makeStream() }

        /// An operation that says it started, then waits until it is cancelled or `release` is
        /// yielded, and records which.
        func operation(_ name: String, release: AsyncStream<Void>? = nil) -> @Sendable () async -> Void {
            { [self] in
                start.yield(name)
                if let release {
                    for await _ in release { break }
                } else {
                    let (never, _) = AsyncStream<Void>.makeStream()
                    for await _ in never {}
                }
                let ending = Task.isCancelled ? "cancelled" : "released"
                entries.withLock { $0.append("\(name) \(ending)") }
            }
        }

        func waitForStart(of name: String) async {
            for await started in started where started == name { return }
        }
    }

    @Test func aKeyedStartCancelsTheTaskTheKeyHeldAndTheStopWaitsForBoth() async {
        let journal = Journal()
        let tasks = OwnedTasks<String>()
        #expect(tasks.start("k", journal.operation("first")))
        await journal.waitForStart(of: "first")
        #expect(tasks.start("k", journal.operation("second")))
        await journal.waitForStart(of: "second")
        #expect(tasks.contains("k"))
        await tasks.cancelAll()
        // Both ended before cancelAll returned: the replaced one too.
        #expect(journal.entries.withLock { $0.sorted() } == ["first cancelled", "second cancelled"])
        #expect(!tasks.contains("k"))
    }

    @Test func cancellingAKeyEndsOnlyItsTask() async {
        let journal = Journal()
        let tasks = OwnedTasks<String>()
        let (release, releasing) = AsyncStream<Void>.makeStream()
        tasks.start("a", journal.operation("a"))
        tasks.start("b", journal.operation("b", release: release))
        await journal.waitForStart(of: "a")
        tasks.cancel("a")
        #expect(!tasks.contains("a") && tasks.contains("b"))
        releasing.yield()
        await tasks.waitForAll()
        #expect(journal.entries.withLock { $0.sorted() } == ["a cancelled", "b released"])
    }

    @Test func waitForAllDoesNotCancelAndNothingStartsAfterTheStop() async {
        let journal = Journal()
        let tasks = OwnedTasks<Never>()
        let (release, releasing) = AsyncStream<Void>.makeStream()
        tasks.start(journal.operation("work", release: release))
        await journal.waitForStart(of: "work")
        async let waited: Void = tasks.waitForAll()
        releasing.yield()
        await waited
        #expect(journal.entries.withLock { $0 } == ["work released"])
        #expect(!tasks.start(journal.operation("late")))
        await tasks.cancelAll()
        #expect(journal.entries.withLock { $0 } == ["work released"])
    }

    @Test func aTaskThatEndsByItselfIsForgotten() async {
        let tasks = OwnedTasks<String>()
        let (done, finished) = AsyncStream<Void>.makeStream()
        tasks.start("quick") { finished.yield() }
        for await _ in done { break }
        await tasks.waitForAll()
        #expect(!tasks.contains("quick"))
    }
}

/// `uncancelled` and `withTimeout`: who is cancelled, and what each answers.
struct CancellationTests {
    @Test func uncancelledWorkRunsToItsEndWhenItsCallerIsCancelled() async throws {
        let (release, releasing) = AsyncStream<Void>.makeStream()
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let caller = Task {
            await uncancelled { () async -> Bool in
                enter.yield()
                for await _ in release { break }
                return Task.isCancelled
            }
        }
        for await _ in entered { break }
        caller.cancel()
        releasing.yield()
        #expect(await caller.value == false)
        await #expect(throws: CancellationError.self) {
            try await uncancelled { () async throws -> Int in throw CancellationError() }
        }
    }

    /// An operation that answers at once is the answer, however often: never taken for late.
    @Test func anOperationThatAnswersAtOnceIsNeverTimedOut() async {
        for attempt in 0..<500 {
            guard case .value(let value) = await withTimeout(.seconds(60), operation: { attempt }) else {
                Issue.record("attempt \(attempt) was not answered with its value")
                return
            }
            #expect(value == attempt)
        }
    }

    @Test func aCancelledCallerIsAnsweredTimedOutAtOnce() async {
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let caller = Task {
            await withTimeout(.seconds(3600)) { () async -> Int in
                enter.yield()
                let (never, _) = AsyncStream<Void>.makeStream()
                for await _ in never {}
                return 1
            }
        }
        for await _ in entered { break }
        caller.cancel()
        guard case .timedOut = await caller.value else {
            Issue.record("a cancelled caller was not answered .timedOut")
            return
        }
    }
}
