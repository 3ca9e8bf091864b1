#if canImport(Glibc)
    import Glibc
#endif

/// The process's open-file limit (RLIMIT_NOFILE). The daemon may raise its soft limit up to the
/// hard one (systemd's default is 1024 soft, 524288 hard), so `limits.max_connections` is
/// judged against the hard limit, and the soft one is raised at start to what the connections
/// and the daemon's own descriptors need.
enum OpenFileLimit {
    static var current: rlimit? {
        var files = rlimit()
        return getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files) == 0 ? files : nil
    }

    /// The most descriptors the process may come to hold; nil when unlimited or unknown.
    static var hard: Int? {
        guard let files = current, files.rlim_max != rlim_t.max else { return nil }
        return Int(files.rlim_max)
    }

    /// Raises the soft limit to `needed` (at most the hard limit) when it is lower; returns
    /// the soft limit in force.
    @discardableResult
    static func raise(to needed: Int) -> Int? {
        guard var files = current else { return nil }
        if files.rlim_cur != rlim_t.max, Int(files.rlim_cur) < needed {
            files.rlim_cur = min(files.rlim_max, rlim_t(needed))
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files)
        }
        return current.map { Int($0.rlim_cur) }
    }
}
