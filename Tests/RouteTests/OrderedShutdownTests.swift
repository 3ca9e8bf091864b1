import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import Daemon

/// The application's pieces stop in their order, one after the other, even when the daemon's
/// service group is cancelled rather than shut down gracefully.
struct OrderedShutdownTests {
    /// What the steps did, in order, and a gate that holds the first step's stop.
    final class Journal: Sendable {
        let entries = Mutex<[String]>([])
        let (firstStopping, firstStops) = AsyncStream<Void>.makeStream()
        let (release, releasing) = AsyncStream<Void>.makeStream()

        func note(_ entry: String) { entries.withLock { $0.append(entry) } }
    }

    @Test func aCancelledGroupStillStopsEachPieceAfterTheOneBefore() async throws {
        let journal = Journal()
        let (runStopped, stopRun) = AsyncStream<Void>.makeStream()
        let (runEnded, endRun) = AsyncStream<Void>.makeStream()
        let steps = [
            ShutdownStep("first") {
                journal.note("first stopping")
                journal.firstStops.yield()
                for await _ in journal.release { break }
                journal.note("first stopped")
            },
            ShutdownStep(
                "running",
                running: {
                    for await _ in runStopped { break }
                    journal.note("run ended")
                    endRun.yield()
                },
                stop: {
                    // As the tracker queue's drain: asks the run to stop, and waits for its end.
                    stopRun.yield()
                    for await _ in runEnded { break }
                    journal.note("running stopped")
                }),
            ShutdownStep("last") { journal.note("last stopped") },
        ]
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: OrderedShutdown(steps: steps), successTerminationBehavior: .ignore)],
                gracefulShutdownSignals: [], cancellationSignals: [], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        running.cancel()
        for await _ in journal.firstStopping { break }
        // The first step's stop is under way; the cancellation has not started the others.
        #expect(journal.entries.withLock { $0 } == ["first stopping"])
        journal.releasing.yield()
        try? await running.value
        #expect(
            journal.entries.withLock { $0 }
                == ["first stopping", "first stopped", "run ended", "running stopped", "last stopped"])
    }
}
