/// A secure signal as it leaves the device: base64url (no padding) of
/// `key_id (1) | kem_id (2) | kdf_id (2) | aead_id (2) | enc (32) | ciphertext`, the
/// header laid out as an RFC 9458 encapsulated request. The HPKE `info` binds the header:
/// `"secure-signals/v1" 0x00 header`; `aad` is empty; the plaintext is a `PlaintextFrame`.
public enum Envelope {
    public static let infoLabel = "secure-signals/v1"
    static let headerLength = 7

    /// The seven header bytes: key id and the suite's three algorithm ids.
    public struct Header: Sendable, Hashable {
        public var keyID: UInt8
        public var suite: HPKE.Suite

        public init(keyID: UInt8, suite: HPKE.Suite) {
            self.keyID = keyID
            self.suite = suite
        }

        public var bytes: [UInt8] {
            [keyID] + suite.kem.rawValue.bigEndianBytes + suite.kdf.rawValue.bigEndianBytes
                + suite.aead.rawValue.bigEndianBytes
        }

        /// The HPKE `info` for an envelope with this header.
        var info: [UInt8] { Array(Envelope.infoLabel.utf8) + [0x00] + bytes }

        /// Reads a header, refusing algorithm ids this implementation does not support.
        init(parsing bytes: ArraySlice<UInt8>) throws {
            guard bytes.count >= Envelope.headerLength else {
                throw CryptoError.malformedEnvelope("\(bytes.count) bytes, shorter than the 7-byte header")
            }
            let base = bytes.startIndex
            func field(_ at: Int) -> UInt16 { UInt16(bytes[base + at]) << 8 | UInt16(bytes[base + at + 1]) }
            keyID = bytes[base]
            suite = HPKE.Suite(
                kem: try HPKE.KEM(id: field(1)), kdf: try HPKE.KDF(id: field(3)), aead: try HPKE.AEAD(id: field(5)))
        }
    }
}

/// Seals payloads for one recipient key configuration: a fresh ephemeral key each time.
public struct EnvelopeSealer: Sendable {
    public let keyConfig: KeyConfig
    public let header: Envelope.Header
    private let keyScheduleContext: [UInt8]
    /// The recipient's key, parsed for libcrypto once: a configuration made from a private
    /// key's public half holds none, and every seal would parse it again.
    private let recipient: X25519PublicKey

    /// Uses the configuration's first supported suite, or the one with `aead`.
    public init(keyConfig: KeyConfig, aead: HPKE.AEAD? = nil) throws {
        self.keyConfig = keyConfig
        recipient = try X25519PublicKey(rawRepresentation: keyConfig.publicKey.rawRepresentation)
        header = Envelope.Header(keyID: keyConfig.keyID, suite: try keyConfig.suite(preferring: aead))
        keyScheduleContext = try KeySchedule.context(suite: header.suite, info: header.info)
    }

    /// The envelope string for `payload`, sealed with a fresh ephemeral key.
    public func seal(_ payload: [UInt8]) throws -> String {
        Base64URL.encode(try sealedBytes(payload, ephemeral: X25519PrivateKey()))
    }

    /// The envelope string for `payload`, sealed with `ephemeral`: a key made for this seal
    /// alone (from `EphemeralKeyPool.take()`), never used again.
    public func seal(_ payload: [UInt8], ephemeral: X25519PrivateKey) throws -> String {
        Base64URL.encode(try sealedBytes(payload, ephemeral: ephemeral))
    }

    /// The envelope before base64url: header, enc, ciphertext.
    public func sealedBytes(_ payload: [UInt8]) throws -> [UInt8] {
        try sealedBytes(payload, ephemeral: X25519PrivateKey())
    }

    /// As above, with `ephemeral`, a key made for this seal alone.
    public func sealedBytes(_ payload: [UInt8], ephemeral: X25519PrivateKey) throws -> [UInt8] {
        let framed = try PlaintextFrame.frame(payload)
        var (enc, context) = try HPKE.setupBaseSender(
            suite: header.suite, recipient: recipient, keyScheduleContext: keyScheduleContext,
            ephemeral: ephemeral)
        let ciphertext = try framed.withUnsafeBytes { try context.seal(plaintext: $0) }
        var envelope = header.bytes
        envelope.reserveCapacity(Envelope.headerLength + enc.count + ciphertext.count)
        envelope += enc
        envelope += ciphertext
        return envelope
    }
}

/// What an opened envelope held.
public struct OpenedEnvelope: Sendable {
    public let header: Envelope.Header
    /// The payload, unframed.
    public let payload: SecretBytes
}

/// Opens envelopes with a recipient's private keys, each known by the key id of its
/// configuration; an envelope must use a suite that configuration offers.
public struct EnvelopeOpener: Sendable {
    private let keys: [UInt8: (privateKey: X25519PrivateKey, config: KeyConfig)]
    /// `key_schedule_context` for every key id and suite this opener accepts.
    private let contexts: [Envelope.Header: [UInt8]]

    public init(privateKey: X25519PrivateKey, keyConfig: KeyConfig) throws {
        try self.init(keys: [(privateKey, keyConfig)])
    }

    /// Several keys, as a recipient holds during a rotation. Each configuration must be
    /// the public half of its private key, and key ids must differ.
    public init(keys: [(privateKey: X25519PrivateKey, keyConfig: KeyConfig)]) throws {
        var byID: [UInt8: (X25519PrivateKey, KeyConfig)] = [:]
        var contexts: [Envelope.Header: [UInt8]] = [:]
        for (privateKey, config) in keys {
            guard privateKey.publicKey == config.publicKey else {
                throw CryptoError.invalidKeyConfig("key id \(config.keyID) is not the public half of this private key")
            }
            guard byID[config.keyID] == nil else {
                throw CryptoError.invalidKeyConfig("key id \(config.keyID) is given twice")
            }
            byID[config.keyID] = (privateKey, config)
            for suite in config.supportedSuites {
                let header = Envelope.Header(keyID: config.keyID, suite: suite)
                contexts[header] = try KeySchedule.context(suite: suite, info: header.info)
            }
        }
        self.keys = byID
        self.contexts = contexts
    }

    public func open(_ envelope: String) throws -> OpenedEnvelope {
        try open(bytes: try Base64URL.decode(envelope))
    }

    public func open(bytes: [UInt8]) throws -> OpenedEnvelope {
        let header = try Envelope.Header(parsing: bytes[...])
        guard let (privateKey, _) = keys[header.keyID] else {
            throw CryptoError.unknownKeyID(header.keyID)
        }
        guard let keyScheduleContext = contexts[header] else {
            throw CryptoError.malformedEnvelope(
                "suite \(header.suite.aead.name) is not offered by key id \(header.keyID)")
        }
        let encLength = header.suite.kem.encapsulatedKeyLength
        let minimum = Envelope.headerLength + encLength + header.suite.aead.tagLength
        guard bytes.count >= minimum else {
            throw CryptoError.malformedEnvelope("truncated: \(bytes.count) bytes, at least \(minimum) expected")
        }
        let enc = Array(bytes[Envelope.headerLength..<Envelope.headerLength + encLength])
        var context = try HPKE.setupBaseRecipient(
            suite: header.suite, enc: enc, recipient: privateKey, keyScheduleContext: keyScheduleContext)
        let framed = try context.open(ciphertext: bytes[(Envelope.headerLength + encLength)...])
        return OpenedEnvelope(header: header, payload: try PlaintextFrame.unframe(framed))
    }
}
