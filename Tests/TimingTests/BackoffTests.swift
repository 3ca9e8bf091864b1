import Testing
import Timing

/// The one backoff rule behind every retry: doubling from `first`, capped at `maximum`, then
/// spread within `jitter`.
struct BackoffTests {
    @Test func thePauseDoublesFromTheFirstUpToTheMaximum() {
        let backoff = Backoff(first: .seconds(2), maximum: .seconds(64))
        #expect(
            (1...8).map { backoff.delay(afterFailures: $0) } == [2, 4, 8, 16, 32, 64, 64, 64].map(Duration.seconds))
        #expect(backoff.delay(afterFailures: 0) == .seconds(2), "no failure yet counts as the first")
        #expect(backoff.delay(afterFailures: 10_000) == .seconds(64), "no overflow however many")
    }

    @Test func jitterSpreadsThePauseWithinItsRangeAfterTheCap() {
        let backoff = Backoff(first: .seconds(10), maximum: .seconds(1800), jitter: 0.9...1.1)
        for failures in [1, 3, 20] {
            let ceiling = min(Duration.seconds(1800), .seconds(10) * (1 << (min(failures, 31) - 1)))
            let pauses = (0..<200).map { _ in backoff.delay(afterFailures: failures) }
            #expect(pauses.allSatisfy { $0 >= ceiling * 0.9 && $0 <= ceiling * 1.1 }, "\(failures): \(pauses.max()!)")
            #expect(Set(pauses).count > 1, "drawn, not fixed")
        }
    }

    @Test func aMaximumBelowTheFirstIsTheFirst() {
        #expect(Backoff(first: .seconds(5), maximum: .seconds(1)).delay(afterFailures: 3) == .seconds(5))
    }
}
