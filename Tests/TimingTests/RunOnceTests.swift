import Synchronization
import Testing

@testable import Timing

/// The life of a piece that runs until asked to stop: once, stoppable before or while it runs.
struct RunOnceTests {
    /// A piece whose run counts its starts and waits for a stop.
    final class Piece: Sendable {
        let lifecycle = RunOnce()
        let runs = Mutex(0)

        func run() async {
            guard lifecycle.begin() else { return }
            runs.withLock { $0 += 1 }
            await lifecycle.stopRequested()
            lifecycle.end()
        }
    }

    @Test func aStopWaitsForTheRunningWorkToEnd() async {
        let piece = Piece()
        await withDiscardingTaskGroup { group in
            group.addTask { await piece.run() }
            await piece.lifecycle.stopAndWait(running: piece.run)
        }
        #expect(piece.runs.withLock { $0 } == 1)
    }

    @Test func aPieceStoppedBeforeItRanRunsOnceAndStopsAtOnce() async {
        let piece = Piece()
        await piece.lifecycle.stopAndWait(running: piece.run)
        await piece.run()
        await piece.lifecycle.stopAndWait(running: piece.run)
        #expect(piece.runs.withLock { $0 } == 1)
    }
}
