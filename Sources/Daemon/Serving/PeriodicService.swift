import ServiceLifecycle

/// Does one small job every `interval` on `clock` until the daemon stops: the housekeeping
/// that nothing else triggers (giving freed memory back, reaping adopted orphans).
struct PeriodicService<C: Clock>: Service where C.Duration == Duration {
    let interval: Duration
    let clock: C
    let work: @Sendable () -> Void

    func run() async throws {
        while (try? await cancelWhenGracefulShutdown { try await clock.sleep(for: interval) }) != nil {
            work()
        }
    }
}
