import SignalCrypto

/// `secure-signals bench hpke`: envelope seals and opens per second for each AEAD and two
/// payload sizes, against the floor of one seal's bare X25519 work (one key generation
/// and one derive on libcrypto directly), measured in the same process, interleaved.
public struct HPKEBenchmark {
    public struct Row: Sendable {
        public var aead: HPKE.AEAD
        public var payloadBytes: Int
        public var sealNanoseconds: Double
        public var openNanoseconds: Double
        /// Seal cost over the X25519 floor measured in the same rounds (median of rounds).
        public var sealRatio: Double
    }

    public struct Report: Sendable {
        public var floorNanoseconds: Double
        public var rows: [Row]
    }

    public var secondsPerMeasurement: Double
    public var rounds: Int
    public var payloadSizes: [Int]

    public init(secondsPerMeasurement: Double = 0.3, rounds: Int = 5, payloadSizes: [Int] = [64, 1024]) {
        self.secondsPerMeasurement = secondsPerMeasurement
        self.rounds = rounds
        self.payloadSizes = payloadSizes
    }

    public func run() throws -> Report {
        let recipient = try X25519PrivateKey()
        let config = KeyConfig(keyID: 1, publicKey: recipient.publicKey, aeads: HPKE.AEAD.allCases)
        let opener = try EnvelopeOpener(privateKey: recipient, keyConfig: config)

        let cases = HPKE.AEAD.allCases.flatMap { aead in payloadSizes.map { (aead, $0) } }
        var samples: [[(seal: Double, open: Double, floor: Double)]] = Array(repeating: [], count: cases.count)
        let floor = try X25519Floor(peer: recipient.publicKey)
        let floorWork = { try floor.run() }
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
                samples[index].append((seal, open, floor))
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
                    sealRatio: median(runs.map { $0.seal / $0.floor })))
        }
        return Report(floorNanoseconds: median(samples.flatMap { $0.map(\.floor) }), rows: rows)
    }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
