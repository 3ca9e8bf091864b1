import CProcessControl

/// Gives memory freed after a burst back to the system. glibc keeps freed memory in its arenas
/// and returns little of it by itself, so after a burst of connections or loads the daemon's
/// resident size would stay near its peak; `malloc_trim` hands it back. BENCHMARKS.md
/// ("bench soak") measures it: +15.6 MB over idle after the soak without, +9 MB with (the rest
/// is the ads the store keeps), where `MALLOC_ARENA_MAX=2` alone changed nothing.
enum MemoryTrim {
    /// How often the daemon trims; `SECURE_SIGNALS_MALLOC_TRIM_S` overrides it (0: never).
    static let defaultInterval = Duration.seconds(10)

    static func release() {
        _ = cprocesscontrol_release_free_memory()
    }
}
