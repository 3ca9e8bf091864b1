import SharedTypes
import SignalCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// `secure-signals bench hpke`: envelope seals and opens per second for each AEAD and two
/// payload sizes, against the floor of one seal's bare X25519 work (one key generation
/// and one derive on libcrypto directly), measured in the same process, interleaved.
@MemberwiseInit
public struct HPKEBenchmark {
    public struct Row: Sendable {
        public var aead: HPKE.AEAD
        public var payloadBytes: Int
        public var sealNanoseconds: Double
        public var openNanoseconds: Double
        /// Seal cost over the X25519 floor measured in the same rounds (median of rounds).
        public var sealRatio: Double
        /// A seal whose ephemeral key comes from a full pool: what the request path pays.
        public var pooledSealNanoseconds: Double
        /// That over the floor measured beside it (median of rounds).
        public var pooledSealRatio: Double
    }

    public struct Report: Sendable {
        public var floorNanoseconds: Double
        public var rows: [Row]
    }

    public var secondsPerMeasurement: Double = 0.3
    public var rounds: Int = 5
    public var payloadSizes: [Int] = [64, 1024]

    public func run() throws -> Report {
        let recipient = try X25519PrivateKey()
        let config = KeyConfig(keyID: 1, publicKey: recipient.publicKey, aeads: HPKE.AEAD.allCases)
        let opener = try EnvelopeOpener(privateKey: recipient, keyConfig: config)

        let cases = HPKE.AEAD.allCases.flatMap { aead in payloadSizes.map { (aead, $0) } }
        var samples: [[(seal: Double, open: Double, floor: Double, pooled: Double, pooledFloor: Double)]] = Array(
            repeating: [], count: cases.count)
        let floor = try X25519Floor(peer: recipient.publicKey)
        let floorWork = { try floor.run() }
        let pool = EphemeralKeyPool(capacity: Self.poolCapacity)
        defer { pool.stop() }
        for _ in 0..<rounds {
            for (index, (aead, size)) in cases.enumerated() {
                let sealer = try EnvelopeSealer(keyConfig: config, aead: aead)
                let payload = [UInt8](repeating: 0x5A, count: size)
                let envelope = try sealer.sealedBytes(payload)
                let (floor, seal) = try Stopwatch.interleaved(seconds: secondsPerMeasurement, baseline: floorWork) {
                    _ = try sealer.sealedBytes(payload)
                }
                let (_, open) = try Stopwatch.interleaved(seconds: secondsPerMeasurement, baseline: floorWork) {
                    _ = try opener.open(bytes: envelope)
                }
                let (pooledFloor, pooled) = try Self.pooled(
                    seconds: secondsPerMeasurement, pool: pool, baseline: floorWork
                ) { key in _ = try sealer.sealedBytes(payload, ephemeral: key) }
                samples[index].append((seal, open, floor, pooled, pooledFloor))
            }
        }
        var rows: [Row] = []
        for (index, (aead, size)) in cases.enumerated() {
            let runs = samples[index]
            rows.append(
                Row(
                    aead: aead, payloadBytes: size,
                    sealNanoseconds: median(runs.map(\.seal)),
                    openNanoseconds: median(runs.map(\.open)),
                    sealRatio: median(runs.map { $0.seal / $0.floor }),
                    pooledSealNanoseconds: median(runs.map(\.pooled)),
                    pooledSealRatio: median(runs.map { $0.pooled / $0.pooledFloor })))
        }
        return Report(floorNanoseconds: median(samples.flatMap { $0.map(\.floor) }), rows: rows)
    }

    /// The keys a pooled measurement takes per batch: a full pool's.
    static let poolCapacity = 128

    /// As `Stopwatch.interleaved`, for seals that take their key from `pool`: each batch takes
    /// what a full pool holds, and the pool is refilled (by its own idle-priority thread) off
    /// the clock between batches, so every timed seal has a pooled key.
    static func pooled(
        seconds: Double, pool: EphemeralKeyPool, baseline: () throws -> Void,
        subject: (X25519PrivateKey) throws -> Void
    ) throws -> (baseline: Double, subject: Double) {
        let clock = ContinuousClock()
        let handedBefore = pool.statistics.handed
        var taken = 0
        let means = try Stopwatch.interleaved(
            seconds: seconds, batch: poolCapacity, swappingOrder: true,
            beforeBatches: {
                let waitUntil = clock.now + .seconds(10)
                while pool.statistics.held < poolCapacity {
                    guard clock.now < waitUntil else { throw BenchFailure("the key pool did not fill in 10 s") }
                    usleep(200)
                }
            }, baseline: baseline,
            subject: {
                try subject(try pool.take())
                taken += 1
            })
        guard pool.statistics.handed - handedBefore == taken else {
            throw BenchFailure("a pooled seal found the pool empty")
        }
        return means
    }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
