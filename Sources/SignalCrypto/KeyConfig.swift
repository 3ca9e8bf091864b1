/// A recipient's public key configuration, encoded as RFC 9458 §3.1 lays out: key id,
/// KEM id, public key, and the KDF/AEAD pairs the recipient accepts, most preferred first.
public struct KeyConfig: Sendable, Equatable {
    /// One KDF/AEAD pair as listed; ids this implementation does not support are kept,
    /// since a configuration may offer algorithms some senders lack.
    public struct SymmetricAlgorithm: Hashable, Sendable {
        public var kdfID: UInt16
        public var aeadID: UInt16
        public init(kdfID: UInt16, aeadID: UInt16) {
            self.kdfID = kdfID
            self.aeadID = aeadID
        }
    }

    public var keyID: UInt8
    public var kem: HPKE.KEM
    public var publicKey: X25519PublicKey
    public var algorithms: [SymmetricAlgorithm]

    public init(keyID: UInt8, publicKey: X25519PublicKey, aeads: [HPKE.AEAD]) {
        self.keyID = keyID
        self.kem = .x25519HKDFSHA256
        self.publicKey = publicKey
        self.algorithms = aeads.map { SymmetricAlgorithm(kdfID: HPKE.KDF.hkdfSHA256.rawValue, aeadID: $0.rawValue) }
    }

    /// The suites this implementation can use with this key, in the configuration's order.
    public var supportedSuites: [HPKE.Suite] {
        algorithms.compactMap { pair in
            guard let kdf = HPKE.KDF(rawValue: pair.kdfID), let aead = HPKE.AEAD(rawValue: pair.aeadID) else {
                return nil
            }
            return HPKE.Suite(kem: kem, kdf: kdf, aead: aead)
        }
    }

    /// The suite a sender uses: the first supported pair, or the one with `aead` when
    /// the caller asks for it.
    public func suite(preferring aead: HPKE.AEAD? = nil) throws -> HPKE.Suite {
        let suites = supportedSuites
        if let aead {
            guard let suite = suites.first(where: { $0.aead == aead }) else {
                throw CryptoError.invalidKeyConfig("key id \(keyID) does not offer \(aead.name)")
            }
            return suite
        }
        guard let suite = suites.first else {
            let offered = algorithms.map { "kdf 0x\(hex16($0.kdfID))/aead 0x\(hex16($0.aeadID))" }
            throw CryptoError.invalidKeyConfig(
                "key id \(keyID) offers no supported kdf/aead pair (offers \(offered.joined(separator: ", ")))")
        }
        return suite
    }

    /// The RFC 9458 §3.1 encoding of this one configuration.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = [keyID]
        out += kem.rawValue.bigEndianBytes
        out += publicKey.rawRepresentation
        out += UInt16(algorithms.count * 4).bigEndianBytes
        for pair in algorithms {
            out += pair.kdfID.bigEndianBytes
            out += pair.aeadID.bigEndianBytes
        }
        return out
    }

    /// Decodes exactly one configuration; trailing bytes are an error.
    public init(decoding bytes: some Collection<UInt8>) throws {
        var reader = ByteReader(Array(bytes))
        try self.init(reading: &reader)
        guard reader.isAtEnd else {
            throw CryptoError.invalidKeyConfig("\(reader.remaining) unexpected bytes after the configuration")
        }
    }

    private init(reading reader: inout ByteReader) throws {
        keyID = try reader.read(UInt8.self, "key id")
        kem = try HPKE.KEM(id: try reader.read(UInt16.self, "kem id"))
        publicKey = try X25519PublicKey(
            rawRepresentation: try reader.read(count: kem.encapsulatedKeyLength, "public key"))
        let length = Int(try reader.read(UInt16.self, "algorithms length"))
        guard length >= 4, length % 4 == 0 else {
            throw CryptoError.invalidKeyConfig("algorithms length \(length) is not a non-zero multiple of 4")
        }
        var pairs: [SymmetricAlgorithm] = []
        for _ in 0..<(length / 4) {
            let kdf = try reader.read(UInt16.self, "kdf id")
            let aead = try reader.read(UInt16.self, "aead id")
            pairs.append(SymmetricAlgorithm(kdfID: kdf, aeadID: aead))
        }
        algorithms = pairs
    }

    /// The `application/ohttp-keys` encoding (RFC 9458 §3.2): each configuration
    /// prefixed with its 2-byte length.
    public static func encodeCollection(_ configs: [KeyConfig]) -> [UInt8] {
        configs.flatMap { config -> [UInt8] in
            let body = config.encoded()
            return UInt16(body.count).bigEndianBytes + body
        }
    }

    /// Decodes an `application/ohttp-keys` collection; any malformed entry refuses the whole.
    public static func decodeCollection(_ bytes: some Collection<UInt8>) throws -> [KeyConfig] {
        var reader = ByteReader(Array(bytes))
        var configs: [KeyConfig] = []
        while !reader.isAtEnd {
            let length = Int(try reader.read(UInt16.self, "configuration length"))
            configs.append(try KeyConfig(decoding: try reader.read(count: length, "configuration")))
        }
        guard !configs.isEmpty else { throw CryptoError.invalidKeyConfig("no configuration") }
        return configs
    }

    /// A published set as a sealer reads it (RFC 9458 §3.2): the configurations of a KEM this
    /// implementation has, in order, and the key ids of those of another KEM, skipped (a set may
    /// offer post-quantum or P-256 keys beside X25519 ones). Throws for a malformed entry, a set
    /// with no configuration, or a key id that a skipped configuration shares with another.
    public static func decodePublishedSet(_ bytes: some Collection<UInt8>) throws -> (
        configs: [KeyConfig], skippedKeyIDs: [UInt8]
    ) {
        var reader = ByteReader(Array(bytes))
        var configs: [KeyConfig] = []
        var skipped: [UInt8: ArraySlice<UInt8>] = [:]
        var skippedIDs: [UInt8] = []
        while !reader.isAtEnd {
            let length = Int(try reader.read(UInt16.self, "configuration length"))
            let entry = try reader.read(count: length, "configuration")
            do {
                configs.append(try KeyConfig(decoding: entry))
            } catch CryptoError.unsupportedAlgorithm(kind: "kem", _) {
                // Its key id and KEM id were read, so the entry is not empty.
                let id = entry[entry.startIndex]
                if let earlier = skipped[id], earlier != entry {
                    throw CryptoError.invalidKeyConfig("key id \(id) names two different keys")
                }
                if skipped.updateValue(entry, forKey: id) == nil { skippedIDs.append(id) }
            }
        }
        guard !configs.isEmpty || !skipped.isEmpty else { throw CryptoError.invalidKeyConfig("no configuration") }
        try checkKeyIDs(configs)
        if let shared = configs.first(where: { skipped[$0.keyID] != nil }) {
            throw CryptoError.invalidKeyConfig("key id \(shared.keyID) names two different keys")
        }
        return (configs, skippedIDs)
    }

    /// Refuses a set in which one key id names two different configurations: a bidder could
    /// not tell which private key opens an envelope sealed with it. A repeat of the same
    /// configuration is allowed.
    public static func checkKeyIDs(_ configs: [KeyConfig]) throws {
        var seen: [UInt8: KeyConfig] = [:]
        for config in configs {
            if let earlier = seen[config.keyID], earlier != config {
                throw CryptoError.invalidKeyConfig("key id \(config.keyID) names two different keys")
            }
            seen[config.keyID] = config
        }
    }

    /// A single configuration or a collection, whichever `bytes` is: what a `.keyconfig`
    /// file or a published key list holds.
    public static func decodeAny(_ bytes: some Collection<UInt8>) throws -> [KeyConfig] {
        do {
            return [try KeyConfig(decoding: bytes)]
        } catch let single {
            guard let list = try? decodeCollection(bytes) else { throw single }
            return list
        }
    }
}

/// Reads big-endian fields off a byte array, naming the field that is missing.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func read(count: Int, _ field: String) throws -> ArraySlice<UInt8> {
        guard remaining >= count else {
            throw CryptoError.invalidKeyConfig("truncated: \(field) needs \(count) bytes, \(remaining) left")
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type, _ field: String) throws -> T {
        try read(count: MemoryLayout<T>.size, field).reduce(T.zero) { ($0 << 8) | T($1) }
    }
}
