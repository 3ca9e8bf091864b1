import CProcessControl
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// X25519 key pairs made ahead of need, for the ephemeral keys of seals. Each key is handed
/// out once and leaves the pool as it is handed; freeing it (when its seal is done, or when the
/// pool drops it) makes libcrypto wipe the private key. A thread of its own at `SCHED_IDLE`
/// makes them, so it runs only on a core nothing else wants; a seal that finds the pool empty
/// makes its key inline, as without a pool. The keys live only in this process's memory.
///
/// What a pool changes is when a key is made, not how: the same libcrypto generation from the
/// same random source, one key per seal, none reused, none written anywhere.
public final class EphemeralKeyPool: Sendable {
    /// The most keys held; 0: no pool, every key is made inline.
    public let capacity: Int
    private let core: Core

    /// Starts the refill thread (none when `capacity` is 0), which fills the pool at once.
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        core = Core(capacity: self.capacity)
        if self.capacity > 0 { core.startRefilling() }
    }

    deinit { core.stop() }

    /// A key for one seal: from the pool, or made now when it is empty.
    public func take() throws -> X25519PrivateKey {
        if let key = core.take() { return key }
        return try X25519PrivateKey()
    }

    /// Stops the refill thread and drops the keys held; `take` makes keys inline from then on.
    public func stop() { core.stop() }

    /// What the pool holds and has done, for tests and benchmarks.
    public struct Statistics: Sendable, Equatable {
        /// Keys held now.
        public var held: Int
        /// Keys handed out from the pool.
        public var handed: Int
        /// Whether the refill thread is running, and its thread id when it is.
        public var refilling: Bool
        public var refillThread: Int32?
    }

    public var statistics: Statistics { core.statistics }

    /// The state shared with the refill thread, which holds it (not the pool) while it runs.
    private final class Core: Sendable {
        struct State {
            var keys: [X25519PrivateKey] = []
            var handed = 0
            var stopped = false
            /// The refill thread waits for `wake`; a take signals it once.
            var refillerWaiting = false
            var refillThread: Int32?
        }

        let capacity: Int
        let state = Mutex(State())
        let wake = DispatchSemaphore(value: 0)

        init(capacity: Int) { self.capacity = capacity }

        func take() -> X25519PrivateKey? {
            let (key, signal) = state.withLock { state -> (X25519PrivateKey?, Bool) in
                guard let key = state.keys.popLast() else { return (nil, false) }
                state.handed += 1
                let signal = state.refillerWaiting
                state.refillerWaiting = false
                return (key, signal)
            }
            if signal { wake.signal() }
            return key
        }

        func stop() {
            let signal = state.withLock { state -> Bool in
                state.stopped = true
                // Freed here: libcrypto wipes each private key as it frees it.
                state.keys.removeAll()
                defer { state.refillerWaiting = false }
                return state.refillerWaiting
            }
            if signal { wake.signal() }
        }

        var statistics: Statistics {
            state.withLock {
                Statistics(
                    held: $0.keys.count, handed: $0.handed, refilling: $0.refillThread != nil,
                    refillThread: $0.refillThread)
            }
        }

        /// A detached thread runs `refill` until `stop`.
        func startRefilling() {
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    let core = Unmanaged<Core>.fromOpaque(context).takeRetainedValue()
                    core.refill()
                    return nil
                }, context)
            if started == 0 {
                pthread_detach(thread)
            } else {
                // No thread: every seal makes its key inline.
                Unmanaged<Core>.fromOpaque(context).release()
            }
        }

        /// On the refill thread: at idle priority, fills the pool whenever a take leaves room.
        private func refill() {
            _ = cprocesscontrol_run_thread_at_idle_priority()
            state.withLock { $0.refillThread = cprocesscontrol_thread_id() }
            defer { state.withLock { $0.refillThread = nil } }
            while true {
                let wanted = state.withLock { state -> Int? in
                    if state.stopped { return nil }
                    if state.keys.count < capacity { return capacity - state.keys.count }
                    state.refillerWaiting = true
                    return 0
                }
                guard let wanted else { return }
                if wanted == 0 {
                    wake.wait()
                    continue
                }
                // Made outside the lock: a take never waits for a key being made.
                guard let key = try? X25519PrivateKey() else {
                    // libcrypto could not make one; seals make theirs inline until it can.
                    state.withLock { $0.refillerWaiting = true }
                    wake.wait()
                    continue
                }
                state.withLock { state in
                    if !state.stopped, state.keys.count < capacity { state.keys.append(key) }
                }
            }
        }
    }
}
