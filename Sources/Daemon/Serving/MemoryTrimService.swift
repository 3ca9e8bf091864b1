import CProcessControl
import Logging
import ServiceLifecycle
import Timing

/// Gives memory freed after a burst back to the system. glibc keeps freed memory in its arenas
/// (one per thread that allocated, up to 8 per core) and returns little of it by itself, so
/// after a burst of connections or loads the daemon's resident size would stay at its peak;
/// `malloc_trim` every `interval` hands it back (BENCHMARKS.md measures both).
struct MemoryTrimService<C: Clock>: Service where C.Duration == Duration {
    let interval: Duration
    let clock: C

    func run() async throws {
        while (try? await cancelWhenGracefulShutdown { try await clock.sleep(for: interval) }) != nil {
            _ = cprocesscontrol_release_free_memory()
        }
    }
}
