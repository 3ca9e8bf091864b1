/// Times repeated work on the monotonic clock.
public enum Stopwatch {
    /// Runs `baseline` and `subject` in alternating batches for about `seconds` in all,
    /// and answers the mean nanoseconds of one run of each. Alternating makes both see
    /// the same machine: on a shared VM the speed drifts within a second.
    public static func interleaved(
        seconds: Double, batch: Int = 16, baseline: () throws -> Void, subject: () throws -> Void
    ) rethrows -> (baseline: Double, subject: Double) {
        let clock = ContinuousClock()
        let budget = Duration.nanoseconds(Int64(seconds * 1e9))
        var spent = (baseline: Duration.zero, subject: Duration.zero)
        var runs = 0
        while spent.baseline + spent.subject < budget {
            var start = clock.now
            for _ in 0..<batch { try baseline() }
            spent.baseline += clock.now - start
            start = clock.now
            for _ in 0..<batch { try subject() }
            spent.subject += clock.now - start
            runs += batch
        }
        return (nanoseconds(spent.baseline) / Double(runs), nanoseconds(spent.subject) / Double(runs))
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }
}
