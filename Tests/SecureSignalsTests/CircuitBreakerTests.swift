import Testing
import Timing

@testable import SecureSignals

/// The breaker's rules, on instants the test chooses.
struct CircuitBreakerTests {
    typealias CircuitBreaker = SecureSignals.CircuitBreaker<ContinuousClock.Instant>
    let start = ContinuousClock.now

    /// Records `outcomes` of requests that were not trials; returns which opened the circuit.
    func record(_ breaker: inout CircuitBreaker, _ outcomes: [Bool], at instant: ContinuousClock.Instant) -> [Bool] {
        outcomes.map { breaker.record(failed: $0, trial: false, at: instant) }
    }

    @Test func opensAfterTheThresholdOfFailuresInARow() {
        var breaker = CircuitBreaker(settings: CircuitBreakerSettings(failures: 3, coolDown: .seconds(10)))
        let first = breaker.decide(at: start)
        #expect(first == .ask)
        // A success resets the count; the third failure in a row opens it.
        let opened = record(&breaker, [true, false, true, true, true], at: start)
        #expect(opened == [false, false, false, false, true])
        let skipped = breaker.decide(at: start + .seconds(4))
        #expect(skipped == .skip(.seconds(6)))
        let status = breaker.status(at: start + .seconds(4))
        #expect(status.state == .open && status.consecutiveFailures == 3 && status.opened == 1)
        #expect(status.retryInMilliseconds == 6000)
    }

    @Test func oneTrialAfterTheCoolDownClosesOrReopensIt() {
        var breaker = CircuitBreaker(settings: CircuitBreakerSettings(failures: 1, coolDown: .seconds(10)))
        _ = record(&breaker, [true], at: start)
        let later = start + .seconds(10)
        #expect(breaker.status(at: later).state == .halfOpen)
        let decisions = [breaker.decide(at: later), breaker.decide(at: later)]
        #expect(decisions == [.trial, .skip(.zero)], "one trial at a time")
        let outcome1 = breaker.record(failed: true, trial: true, at: later)
        #expect(outcome1, "a failed trial opens it again")
        let again = [breaker.decide(at: later + .seconds(9)), breaker.decide(at: later + .seconds(10))]
        #expect(again == [.skip(.seconds(1)), .trial])
        let outcome2 = breaker.record(failed: false, trial: true, at: later + .seconds(10))
        #expect(!outcome2)
        let closed = breaker.decide(at: later + .seconds(10))
        #expect(closed == .ask)
        #expect(breaker.status(at: later + .seconds(10)).state == .closed && breaker.opened == 2)
    }

    @Test func whileOpenOnlyTheTrialDecides() {
        var breaker = CircuitBreaker(settings: CircuitBreakerSettings(failures: 1, coolDown: .seconds(1)))
        _ = record(&breaker, [true], at: start)
        let later = start + .seconds(1)
        let outcome3 = breaker.decide(at: later)
        #expect(outcome3 == .trial)
        // A request sent before the circuit opened answers now: it decides nothing.
        #expect(record(&breaker, [false, true], at: later) == [false, false])
        #expect(breaker.status(at: later).state == .halfOpen)
        let outcome4 = breaker.decide(at: later)
        #expect(outcome4 == .skip(.zero), "the trial is still under way")
        let outcome5 = breaker.record(failed: false, trial: true, at: later)
        #expect(!outcome5)
        #expect(breaker.status(at: later).state == .closed)
    }

    @Test func turningTheBreakerOffClosesIt() {
        var breaker = CircuitBreaker(settings: CircuitBreakerSettings(failures: 1, coolDown: .seconds(60)))
        _ = record(&breaker, [true], at: start)
        breaker.settings = CircuitBreakerSettings(failures: 0)
        let outcome6 = breaker.decide(at: start)
        #expect(outcome6 == .ask)
        #expect(breaker.status(at: start).state == .closed)
    }

    @Test func zeroFailuresMeansNeverOpen() {
        var breaker = CircuitBreaker(settings: CircuitBreakerSettings(failures: 0))
        #expect(!record(&breaker, Array(repeating: true, count: 100), at: start).contains(true))
        let decision = breaker.decide(at: start)
        #expect(decision == .ask)
    }
}

@Test func durationsBeyondInt64NanosecondsSaturateInsteadOfTrapping() {
    #expect(Duration.seconds(1).nanoseconds == 1_000_000_000)
    #expect(Duration.seconds(Int64.max / 2).nanoseconds == .max)
    #expect(Duration.seconds(Int64.min / 2).nanoseconds == .min)
}
