import ServiceLifecycle

/// Does one small job every `interval` on `clock` until the daemon stops: the housekeeping
/// that nothing else triggers (giving freed memory back, reaping adopted orphans, watching the
/// state database through an outage).
struct PeriodicService<C: Clock>: Service where C.Duration == Duration {
    let interval: Duration
    let clock: C
    let work: @Sendable () async -> Void

    func run() async throws {
        while (try? await cancelWhenGracefulShutdown { try await clock.sleep(for: interval) }) != nil {
            await work()
        }
    }
}
