import Synchronization

/// The monotonic clock, plus an offset that only moves forward: the daemon's clock. The
/// product's is fixed (`adjustable: false`): its offset stays zero and it sleeps as the
/// monotonic clock does, at the same cost. The testbed daemon's is adjustable: a test moves it
/// so that expiry, retry schedules and caches run through the socket without waiting.
public final class AdjustableClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let origin = ContinuousClock.now
    /// Whether `advance` may move it; a fixed clock never takes the lock.
    public let isAdjustable: Bool
    /// The offset, sleepers waiting for it to move, and how often it moved (a sleeper that
    /// looked before a move and registers after it must not wait for the next one).
    private let skew = Mutex<
        (offset: Duration, waiters: [Int: CheckedContinuation<Void, Never>], next: Int, moves: Int)
    >((.zero, [:], 0, 0))

    /// Whether real time moves it too; a stopped clock moves by `advance` alone.
    public let runs: Bool

    /// `adjustable`: whether `advance` may move it (the testbed's); the product's is fixed.
    /// `runs: false` stops it (adjustable only): a test that reads a schedule off it then reads
    /// exactly what was scheduled, however busy the machine.
    public init(adjustable: Bool, runs: Bool = true) {
        precondition(runs || adjustable, "a fixed clock runs")
        isAdjustable = adjustable
        self.runs = runs
    }

    public var now: Instant {
        let elapsed = runs ? ContinuousClock.now - origin : .zero
        return Instant(offset: isAdjustable ? elapsed + skew.withLock { $0.offset } : elapsed)
    }
    public var minimumResolution: Duration { .milliseconds(1) }

    /// How many sleepers wait for the clock to move (an adjustable one's), as the tests'
    /// `ManualClock.sleeping`: a test moves it once the sleeper it means waits.
    public var sleeping: Int { skew.withLock { $0.waiters.count } }

    /// Moves the clock forward, waking sleepers whose time has come; only an adjustable one.
    public func advance(by duration: Duration) {
        precondition(isAdjustable, "a fixed clock does not move")
        let waiters = skew.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.offset += max(.zero, duration)
            state.moves += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        guard isAdjustable else {
            return try await ContinuousClock().sleep(until: origin.advanced(by: deadline.offset), tolerance: tolerance)
        }
        while true {
            try Task.checkCancellation()
            let (id, moves) = skew.withLock { state -> (Int, Int) in
                state.next += 1
                return (state.next, state.moves)
            }
            let remaining = now.duration(to: deadline)
            if remaining <= .zero { return }
            // Sleep on the real clock, but wake at once when the offset moves.
            await withTaskGroup(of: Void.self) { group in
                if runs { group.addTask { try? await Task.sleep(for: remaining) } }
                group.addTask {
                    await withTaskCancellationHandler {
                        await withCheckedContinuation { continuation in
                            // Cancelled before it could wait (the real sleep ended first): go.
                            let waitNow = self.skew.withLock { state -> Bool in
                                if Task.isCancelled || state.moves != moves { return false }
                                state.waiters[id] = continuation
                                return true
                            }
                            if !waitNow { continuation.resume() }
                        }
                    } onCancel: {
                        self.skew.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }
}
