import Synchronization
import TestSupport
import Testing
import Timing

/// The daemon's clock: the product's follows real time alone; the testbed's moves by `advance`
/// too; a stopped one by `advance` alone.
struct AdjustableClockTests {
    /// Spins until `duration` of real time has passed (a few ms: no sleep to wait on).
    static func letRealTimePass(_ duration: Duration) {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < duration {}
    }

    @Test func aStoppedClockMovesByAdvanceAlone() {
        let clock = AdjustableClock(adjustable: true, runs: false)
        let start = clock.now
        Self.letRealTimePass(.milliseconds(2))
        #expect(clock.now == start, "real time does not move it")
        clock.advance(by: .milliseconds(1500))
        #expect(start.duration(to: clock.now) == .milliseconds(1500))
    }

    @Test(.timeLimit(.minutes(1))) func aSleeperOnAStoppedClockWakesWhenAdvancedToItsDeadlineAndNotBefore() async throws
    {
        let clock = AdjustableClock(adjustable: true, runs: false)
        let woke = Atomic<Bool>(false)
        let deadline = clock.now.advanced(by: .seconds(10))
        let sleeper = Task {
            try await clock.sleep(until: deadline, tolerance: nil)
            woke.store(true, ordering: .sequentiallyConsistent)
        }
        // Each move once the sleeper waits: one short of its deadline sends it back to waiting.
        for step in [Duration.seconds(9), .milliseconds(999)] {
            try await waitUntil { clock.sleeping == 1 }
            clock.advance(by: step)
        }
        try await waitUntil { clock.sleeping == 1 }
        let early = woke.load(ordering: .sequentiallyConsistent)
        #expect(!early, "it waits again, 1 ms short")
        clock.advance(by: .milliseconds(1))
        try await sleeper.value
        let late = woke.load(ordering: .sequentiallyConsistent)
        #expect(late)
    }

    @Test func theTestbedClockFollowsRealTimePlusItsAdvances() {
        let clock = AdjustableClock(adjustable: true)
        let start = clock.now
        clock.advance(by: .seconds(60))
        Self.letRealTimePass(.milliseconds(2))
        let moved = start.duration(to: clock.now)
        #expect(moved >= .seconds(60) + .milliseconds(2))
    }
}
