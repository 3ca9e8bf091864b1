/// Times repeated work on the monotonic clock.
public enum Stopwatch {
    /// Runs `baseline` and `subject` in alternating batches for about `seconds` in all,
    /// and answers the mean nanoseconds of one run of each. Alternating makes both see
    /// the same machine: on a shared VM the speed drifts within a second. `beforeBatches`
    /// runs off the clock before each pair of batches; with `swappingOrder`, every other pair
    /// starts with the subject, so that neither alone pays for what `beforeBatches` left cold.
    public static func interleaved(
        seconds: Double, batch: Int = 16, swappingOrder: Bool = false, beforeBatches: () throws -> Void = {},
        baseline: () throws -> Void, subject: () throws -> Void
    ) rethrows -> (baseline: Double, subject: Double) {
        let clock = ContinuousClock()
        let budget = Duration.nanoseconds(Int64(seconds * 1e9))
        var spent = (baseline: Duration.zero, subject: Duration.zero)
        var runs = 0
        func time(_ work: () throws -> Void) rethrows -> Duration {
            let start = clock.now
            for _ in 0..<batch { try work() }
            return clock.now - start
        }
        while spent.baseline + spent.subject < budget {
            try beforeBatches()
            if swappingOrder, runs / batch % 2 == 1 {
                spent.subject += try time(subject)
                spent.baseline += try time(baseline)
            } else {
                spent.baseline += try time(baseline)
                spent.subject += try time(subject)
            }
            runs += batch
        }
        return (nanoseconds(spent.baseline) / Double(runs), nanoseconds(spent.subject) / Double(runs))
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }
}
