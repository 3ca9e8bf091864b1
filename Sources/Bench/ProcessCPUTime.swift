import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// CPU time this process has used (user plus system), in seconds. Another process's is
/// `ProcessFootprint.of(pid)?.cpuSeconds`.
public enum ProcessCPUTime {
    /// This process's, from getrusage(2).
    public static var current: Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
