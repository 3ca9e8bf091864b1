import CLibCrypto
import FoundationEssentials

extension HPKE {
    /// Base mode (0x00) of RFC 9180 §5.1.1: a sender context and the `enc` that the
    /// recipient needs to build the matching one. A fresh ephemeral key every call.
    public static func setupBaseSender(
        suite: Suite, recipient: X25519PublicKey, info: [UInt8]
    ) throws -> (enc: [UInt8], context: SenderContext) {
        try setupBaseSender(suite: suite, recipient: recipient, info: info, ephemeral: X25519PrivateKey())
    }

    /// As above with a chosen ephemeral key: for test vectors only, since reusing an
    /// ephemeral key breaks HPKE's security.
    package static func setupBaseSender(
        suite: Suite, recipient: X25519PublicKey, info: [UInt8], ephemeral: X25519PrivateKey
    ) throws -> (enc: [UInt8], context: SenderContext) {
        try setupBaseSender(
            suite: suite, recipient: recipient,
            keyScheduleContext: try KeySchedule.context(suite: suite, info: info), ephemeral: ephemeral)
    }

    /// The sender's setup with `key_schedule_context` already computed: it depends only on
    /// the suite and `info`, which are fixed for an envelope key, so sealers compute it once.
    static func setupBaseSender(
        suite: Suite, recipient: X25519PublicKey, keyScheduleContext: [UInt8], ephemeral: X25519PrivateKey
    ) throws -> (enc: [UInt8], context: SenderContext) {
        let kdf = try HKDF()
        let (secret, enc) = try DHKEM.encapsulate(to: recipient, ephemeral: ephemeral, kdf: kdf)
        let schedule = try KeySchedule(suite: suite, sharedSecret: secret, context: keyScheduleContext, kdf: kdf)
        return (enc, SenderContext(schedule))
    }

    /// DeriveKeyPair (RFC 9180 §7.1.3): the key pair that `ikm` determines. For test
    /// vectors; real keys come from `X25519PrivateKey()`.
    package static func deriveKeyPair(ikm: [UInt8]) throws -> X25519PrivateKey {
        try DHKEM.deriveKeyPair(ikm: ikm)
    }

    /// The recipient's side of base mode: the context that opens what the sender sealed.
    public static func setupBaseRecipient(
        suite: Suite, enc: [UInt8], recipient: X25519PrivateKey, info: [UInt8]
    ) throws -> RecipientContext {
        try setupBaseRecipient(
            suite: suite, enc: enc, recipient: recipient,
            keyScheduleContext: try KeySchedule.context(suite: suite, info: info))
    }

    static func setupBaseRecipient(
        suite: Suite, enc: [UInt8], recipient: X25519PrivateKey, keyScheduleContext: [UInt8]
    ) throws -> RecipientContext {
        guard enc.count == suite.kem.encapsulatedKeyLength else {
            throw CryptoError.invalidPublicKey("enc has \(enc.count) bytes, not \(suite.kem.encapsulatedKeyLength)")
        }
        let kdf = try HKDF()
        let secret = try DHKEM.decapsulate(enc: enc, recipient: recipient, kdf: kdf)
        return RecipientContext(
            try KeySchedule(suite: suite, sharedSecret: secret, context: keyScheduleContext, kdf: kdf))
    }

    /// The sender's context: seals messages in order (each with the next nonce) and
    /// exports secrets.
    public struct SenderContext: Sendable {
        private var schedule: KeySchedule
        init(_ schedule: KeySchedule) { self.schedule = schedule }

        public mutating func seal(aad: [UInt8] = [], plaintext: some ContiguousBytes) throws -> [UInt8] {
            let nonce = try schedule.nextNonce()
            return try plaintext.withUnsafeBytes {
                try AEADCipher.seal(schedule.suite.aead, key: schedule.key, nonce: nonce, aad: aad, plaintext: $0)
            }
        }

        public func export(context: [UInt8], length: Int) throws -> SecretBytes {
            try schedule.export(context: context, length: length)
        }
    }

    /// The recipient's context: opens messages in the order they were sealed.
    public struct RecipientContext: Sendable {
        private var schedule: KeySchedule
        init(_ schedule: KeySchedule) { self.schedule = schedule }

        /// The plaintext, or `CryptoError.authenticationFailed`. A failed open does not
        /// advance the sequence number.
        public mutating func open(aad: [UInt8] = [], ciphertext: some ContiguousBytes) throws -> SecretBytes {
            let nonce = try schedule.currentNonce()
            let plaintext = try ciphertext.withUnsafeBytes {
                try AEADCipher.open(schedule.suite.aead, key: schedule.key, nonce: nonce, aad: aad, ciphertext: $0)
            }
            schedule.advance()
            return plaintext
        }

        public func export(context: [UInt8], length: Int) throws -> SecretBytes {
            try schedule.export(context: context, length: length)
        }
    }
}

/// KeySchedule of RFC 9180 §5.1 for base mode, with the sequence number of §5.2.
/// The exporter secret is derived when something exports, not for every seal.
struct KeySchedule: Sendable {
    let suite: HPKE.Suite
    let key: SecretBytes
    let baseNonce: [UInt8]
    private let secret: SecretBytes
    private let context: [UInt8]
    private(set) var sequence: UInt64 = 0

    /// `key_schedule_context` = mode || psk_id_hash || info_hash, for base mode.
    static func context(suite: HPKE.Suite, info: [UInt8]) throws -> [UInt8] {
        let kdf = try HKDF()
        let pskIDHash = try kdf.labeledExtract(suiteID: suite.id, label: "psk_id_hash", ikm: [])
        let infoHash = try kdf.labeledExtract(suiteID: suite.id, label: "info_hash", ikm: info)
        return [0x00] + pskIDHash.bytes + infoHash.bytes
    }

    init(suite: HPKE.Suite, sharedSecret: SecretBytes, context: [UInt8], kdf: HKDF) throws {
        let id = suite.id
        let secret = try kdf.labeledExtract(suiteID: id, salt: sharedSecret, label: "secret", ikm: [])
        self.suite = suite
        self.secret = secret
        self.context = context
        key = try kdf.labeledExpand(
            suiteID: id, prk: secret, label: "key", info: context, length: suite.aead.keyLength)
        baseNonce = try kdf.labeledExpand(
            suiteID: id, prk: secret, label: "base_nonce", info: context, length: suite.aead.nonceLength
        ).bytes
    }

    /// base_nonce XOR I2OSP(seq, Nn).
    func currentNonce() throws -> [UInt8] {
        // Nn is 12 bytes, so seq never reaches its limit before UInt64 does.
        guard sequence < UInt64.max else { throw CryptoError.messageLimitReached }
        var nonce = baseNonce
        let seq = sequence.bigEndianBytes
        for i in 0..<seq.count {
            nonce[nonce.count - seq.count + i] ^= seq[i]
        }
        return nonce
    }

    mutating func advance() { sequence += 1 }

    mutating func nextNonce() throws -> [UInt8] {
        let nonce = try currentNonce()
        advance()
        return nonce
    }

    /// Export(exporter_context, L) of RFC 9180 §5.3.
    func export(context: [UInt8], length: Int) throws -> SecretBytes {
        guard (0...(255 * suite.kdf.hashLength)).contains(length) else {
            throw CryptoError.libcrypto("export length \(length) is not between 0 and 255 * Nh")
        }
        let kdf = try HKDF()
        let exporterSecret = try kdf.labeledExpand(
            suiteID: suite.id, prk: secret, label: "exp", info: self.context, length: suite.kdf.hashLength)
        return try kdf.labeledExpand(
            suiteID: suite.id, prk: exporterSecret, label: "sec", info: context, length: length)
    }
}
