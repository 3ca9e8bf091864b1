import Synchronization
import Testing

@testable import Timing

/// The life of a piece that runs until asked to stop: once, stoppable before or while it runs.
struct RunOnceTests {
    /// A piece whose run counts its starts, waits for a stop, then for `finish` before it ends.
    final class Piece: Sendable {
        let lifecycle = RunOnce()
        let runs = Mutex(0)
        /// Set by a test once its stop has returned.
        let stopReturned = Mutex(false)
        let stopping: AsyncStream<Void>
        private let stopped: AsyncStream<Void>.Continuation
        let finishing: AsyncStream<Void>
        let finish: AsyncStream<Void>.Continuation

        init() {
            (stopping, stopped) = AsyncStream<Void>.makeStream()
            (finishing, finish) = AsyncStream<Void>.makeStream()
        }

        func run() async {
            guard lifecycle.begin() else { return }
            runs.withLock { $0 += 1 }
            await lifecycle.stopRequested()
            stopped.yield()
            for await _ in finishing { break }
            lifecycle.end()
        }
    }

    @Test func aStopWaitsForTheRunningWorkToEnd() async {
        let piece = Piece()
        await withDiscardingTaskGroup { group in
            group.addTask { await piece.run() }
            group.addTask {
                await piece.lifecycle.stopAndWait(running: piece.run)
                piece.stopReturned.withLock { $0 = true }
            }
            // The run has seen the stop and holds: the stop has not returned.
            for await _ in piece.stopping { break }
            #expect(piece.stopReturned.withLock { $0 } == false)
            piece.finish.yield()
        }
        #expect(piece.stopReturned.withLock { $0 } && piece.runs.withLock { $0 } == 1)
    }

    @Test func aPieceStoppedBeforeItRanRunsOnceAndStopsAtOnce() async {
        let piece = Piece()
        piece.finish.yield()
        await piece.lifecycle.stopAndWait(running: piece.run)
        await piece.run()
        await piece.lifecycle.stopAndWait(running: piece.run)
        #expect(piece.runs.withLock { $0 } == 1)
    }
}
