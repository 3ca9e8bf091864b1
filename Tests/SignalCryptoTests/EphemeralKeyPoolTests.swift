import CProcessControl
import SignalCrypto
import TestSupport
import Testing

/// The ephemeral key pool: every key used for one seal only, filled in idle time by a thread at
/// SCHED_IDLE that stops with the pool, and seals that still work when it is empty or off.
struct EphemeralKeyPoolTests {
    let recipient: X25519PrivateKey
    let config: KeyConfig
    let sealer: EnvelopeSealer
    let opener: EnvelopeOpener

    init() throws {
        recipient = try X25519PrivateKey()
        config = KeyConfig(keyID: 3, publicKey: recipient.publicKey, aeads: [.aes128GCM])
        sealer = try EnvelopeSealer(keyConfig: config)
        opener = try EnvelopeOpener(privateKey: recipient, keyConfig: config)
    }

    /// The envelope's `enc`: the ephemeral public key, after the 7-byte header.
    func enc(_ envelope: [UInt8]) -> [UInt8] { Array(envelope[7..<39]) }

    @Test func everyKeySealsOnceAndEveryEnvelopeOpens() async throws {
        let pool = EphemeralKeyPool(capacity: 16)
        defer { pool.stop() }
        try await waitUntil(timeout: .seconds(60)) { pool.statistics.held == 16 }
        // More seals than the pool holds, from several tasks at once: pooled keys and inline ones.
        let envelopes = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for task in 0..<4 {
                group.addTask {
                    try (0..<100).map { index in
                        try sealer.sealedBytes(Array("signal \(task)-\(index)".utf8), ephemeral: try pool.take())
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(envelopes.map(enc)).count == 400, "no two envelopes share an ephemeral key")
        #expect(pool.statistics.handed >= 16, "\(pool.statistics)")
        for envelope in envelopes {
            let opened = try opener.open(bytes: envelope)
            #expect(opened.payload.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.hasPrefix("signal "))
        }
    }

    @Test func theRefillThreadRunsAtIdlePriorityAndStopsWithThePool() async throws {
        let pool = EphemeralKeyPool(capacity: 8)
        try await waitUntil(timeout: .seconds(60)) { pool.statistics.held == 8 }
        let thread = try #require(pool.statistics.refillThread)
        #expect(cprocesscontrol_thread_is_idle_priority(thread) == 1, "SCHED_IDLE: it yields every core")
        // A take leaves room, and the thread fills it again, but only once takes have stopped
        // for the quiet period: never while requests are being answered.
        let taken = ContinuousClock.now
        _ = try pool.take()
        #expect(pool.statistics.held == 7 && pool.statistics.handed == 1)
        try await waitUntil(timeout: .seconds(60)) { pool.statistics.held == 8 }
        #expect(ContinuousClock.now - taken >= EphemeralKeyPool.quietPeriod)
        pool.stop()
        #expect(pool.statistics.held == 0, "the keys are dropped at once")
        try await waitUntil(timeout: .seconds(60)) { !pool.statistics.refilling }
        // Stopped, it still seals: keys made inline.
        let envelope = try sealer.sealedBytes([1, 2, 3], ephemeral: try pool.take())
        #expect(try opener.open(bytes: envelope).payload.count == 3)
        #expect(pool.statistics.held == 0 && pool.statistics.handed == 1)
    }

    @Test func aPoolOfNoneMakesEveryKeyInline() throws {
        let pool = EphemeralKeyPool(capacity: 0)
        let statistics = pool.statistics
        #expect(statistics.held == 0 && statistics.handed == 0 && !statistics.refilling)
        let envelopes = try (0..<20).map { _ in try sealer.sealedBytes([7], ephemeral: try pool.take()) }
        #expect(Set(envelopes.map(enc)).count == 20)
        #expect(pool.statistics.handed == 0)
    }

    @Test func aDroppedPoolStopsItsThread() async throws {
        var pool: EphemeralKeyPool? = EphemeralKeyPool(capacity: 4)
        try await waitUntil(timeout: .seconds(60)) { pool?.statistics.refilling == true }
        let thread = try #require(pool?.statistics.refillThread)
        pool = nil
        // The thread is gone once the kernel no longer knows its id in this process.
        try await waitUntil(timeout: .seconds(60)) { cprocesscontrol_thread_is_idle_priority(thread) != 1 }
    }
}
