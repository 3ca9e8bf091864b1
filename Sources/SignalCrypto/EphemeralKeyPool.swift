import CProcessControl
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// X25519 key pairs made ahead of need, for the ephemeral keys of seals. Each key is handed
/// out once and leaves the pool as it is handed; freeing it (when its seal is done, or when the
/// pool drops it) makes libcrypto wipe the private key. A thread of its own at `SCHED_IDLE`
/// makes them in idle time: only on a core nothing else wants, and only once no key has been
/// taken for `quietPeriod`. While requests keep coming it sleeps: measured on a 2-core VM,
/// waking each millisecond to look tripled the p99 of back-to-back requests, and refilling
/// between them cannot keep up anyway. A seal that finds the pool empty makes its key inline,
/// as without a pool. The keys live only in this process's memory.
///
/// What a pool changes is when a key is made, not how: the same libcrypto generation from the
/// same random source, one key per seal, none reused, none written anywhere.
public final class EphemeralKeyPool: Sendable {
    /// The most keys held; 0: no pool, every key is made inline.
    public let capacity: Int
    private let core: Core

    /// How long after the last take the refill thread waits before it makes keys.
    public static let quietPeriod = Duration.milliseconds(50)

    /// Starts the refill thread (none when `capacity` is 0), which fills the pool at once.
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        let quiet = Self.quietPeriod.components
        core = Core(
            capacity: self.capacity, quietNanoseconds: quiet.seconds * 1_000_000_000 + quiet.attoseconds / 1_000_000_000
        )
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

    /// The slots shared with the refill thread, which holds this (not the pool) while it runs.
    /// A take never waits for a lock the refill thread might hold: a thread at SCHED_IDLE
    /// preempted while holding one would keep a request waiting until a core fell idle. So each
    /// slot is one atomic word, a retained key box or 0, that a take empties with an exchange
    /// and only the refill thread fills. `@unchecked Sendable`: the slots are only ever touched
    /// through their atomics, and freed by the last owner.
    private final class Core: @unchecked Sendable {
        /// One key, retained in a slot as its address.
        final class Box {
            let key: X25519PrivateKey
            init(_ key: X25519PrivateKey) { self.key = key }
        }

        let capacity: Int
        private let slots: UnsafeMutablePointer<Atomic<UInt>>
        private let handedCount = Atomic<Int>(0)
        /// How many slots hold a key (a hint: a take that finds it 0 does not scan).
        private let heldCount = Atomic<Int>(0)
        private let stopped = Atomic<Bool>(false)
        /// Set by the refill thread before it waits for `wake`; a take that finds it set signals.
        private let refillerWaiting = Atomic<Bool>(false)
        /// The refill thread's id while it runs; 0 otherwise.
        private let refillThread = Atomic<Int32>(0)
        private let wake = DispatchSemaphore(value: 0)
        /// When the last key was taken (CLOCK_MONOTONIC, ns), and how long to let that be.
        private let lastTake = Atomic<Int64>(0)
        private let quietNanoseconds: Int64

        init(capacity: Int, quietNanoseconds: Int64) {
            self.quietNanoseconds = quietNanoseconds
            self.capacity = capacity
            slots = .allocate(capacity: max(1, capacity))
            for index in 0..<max(1, capacity) { (slots + index).initialize(to: Atomic(0)) }
        }

        deinit {
            drain()
            slots.deinitialize(count: max(1, capacity))
            slots.deallocate()
        }

        func take() -> X25519PrivateKey? {
            // Empty is the usual state under load: no scan then.
            guard heldCount.load(ordering: .relaxed) > 0, !stopped.load(ordering: .relaxed) else { return nil }
            for index in 0..<capacity where slots[index].load(ordering: .relaxed) != 0 {
                let address = slots[index].exchange(0, ordering: .sequentiallyConsistent)
                guard let pointer = UnsafeRawPointer(bitPattern: address) else { continue }
                let key = Unmanaged<Box>.fromOpaque(pointer).takeRetainedValue().key
                heldCount.wrappingSubtract(1, ordering: .relaxed)
                handedCount.wrappingAdd(1, ordering: .relaxed)
                lastTake.store(Self.monotonicNanoseconds, ordering: .relaxed)
                if refillerWaiting.exchange(false, ordering: .sequentiallyConsistent) { wake.signal() }
                return key
            }
            return nil
        }

        func stop() {
            stopped.store(true, ordering: .sequentiallyConsistent)
            // Freed here: libcrypto wipes each private key as it frees it.
            drain()
            wake.signal()
        }

        /// Empties every slot.
        private func drain() {
            for index in 0..<capacity {
                let address = slots[index].exchange(0, ordering: .sequentiallyConsistent)
                if let pointer = UnsafeRawPointer(bitPattern: address) {
                    heldCount.wrappingSubtract(1, ordering: .relaxed)
                    Unmanaged<Box>.fromOpaque(pointer).release()
                }
            }
        }

        var statistics: Statistics {
            let held = (0..<capacity).count { slots[$0].load(ordering: .relaxed) != 0 }
            let thread = refillThread.load(ordering: .relaxed)
            return Statistics(
                held: held, handed: handedCount.load(ordering: .relaxed), refilling: thread != 0,
                refillThread: thread == 0 ? nil : thread)
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

        static var monotonicNanoseconds: Int64 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        }

        /// The first empty slot, if any.
        private var emptySlot: Int? {
            (0..<capacity).first { slots[$0].load(ordering: .sequentiallyConsistent) == 0 }
        }

        /// On the refill thread: at idle priority, fills every empty slot, then waits for a take.
        private func refill() {
            _ = cprocesscontrol_run_thread_at_idle_priority()
            refillThread.store(cprocesscontrol_thread_id(), ordering: .relaxed)
            defer {
                drain()
                refillThread.store(0, ordering: .relaxed)
            }
            while !stopped.load(ordering: .sequentiallyConsistent) {
                guard let slot = emptySlot else {
                    // Said before looking again: a take either sees it, or left a slot this finds.
                    refillerWaiting.store(true, ordering: .sequentiallyConsistent)
                    if emptySlot == nil, !stopped.load(ordering: .sequentiallyConsistent) { wake.wait() }
                    refillerWaiting.store(false, ordering: .sequentiallyConsistent)
                    continue
                }
                // Keys are taken: requests are being answered. Wait until they have been quiet a while.
                let quiet = Self.monotonicNanoseconds - lastTake.load(ordering: .relaxed)
                if quiet < quietNanoseconds {
                    usleep(UInt32(max(1000, (quietNanoseconds - quiet) / 1000)))
                    continue
                }
                // libcrypto could not make one: seals make theirs inline; try again in a second.
                guard let key = try? X25519PrivateKey() else {
                    usleep(1_000_000)
                    continue
                }
                let box = UInt(bitPattern: Unmanaged.passRetained(Box(key)).toOpaque())
                if slots[slot].compareExchange(expected: 0, desired: box, ordering: .sequentiallyConsistent).exchanged {
                    heldCount.wrappingAdd(1, ordering: .relaxed)
                } else if let pointer = UnsafeRawPointer(bitPattern: box) {
                    Unmanaged<Box>.fromOpaque(pointer).release()
                }
                // Stopped while this key was made: it goes at once, with any other.
                if stopped.load(ordering: .sequentiallyConsistent) { drain() }
            }
        }
    }
}
