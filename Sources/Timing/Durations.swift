import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Milliseconds to the microsecond, for answers and logs.
package func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded(toPlaces: 3)
}

extension Double {
    /// Rounded to `places` decimal places.
    package func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}

extension Duration {
    /// Whole milliseconds (truncated), as wall-clock times are kept.
    package var wholeMilliseconds: Int64 { nanoseconds / 1_000_000 }

    /// Saturates at Int64's bounds (about 292 years) rather than trapping.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return carry ? (seconds < 0 ? .min : .max) : total
    }
}
