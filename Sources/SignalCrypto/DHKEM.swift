/// DHKEM(X25519, HKDF-SHA256) of RFC 9180 §4.1.
enum DHKEM {
    /// `suite_id` of the KEM: "KEM" || I2OSP(kem_id, 2).
    static let suiteID = Array("KEM".utf8) + HPKE.KEM.x25519HKDFSHA256.rawValue.bigEndianBytes

    /// DeriveKeyPair(ikm) of RFC 9180 §7.1.3 for X25519.
    static func deriveKeyPair(ikm: [UInt8]) throws -> X25519PrivateKey {
        let kdf = try HKDF()
        let prk = try kdf.labeledExtract(suiteID: suiteID, label: "dkp_prk", ikm: ikm)
        let secret = try kdf.labeledExpand(suiteID: suiteID, prk: prk, label: "sk", info: [], length: 32)
        return try X25519PrivateKey(rawRepresentation: secret)
    }

    /// Encap(pkR) with the given ephemeral key: the shared secret and `enc`.
    static func encapsulate(
        to recipient: X25519PublicKey, ephemeral: X25519PrivateKey, kdf: HKDF
    ) throws -> (sharedSecret: SecretBytes, enc: [UInt8]) {
        let dh = try ephemeral.sharedSecret(with: recipient)
        let enc = ephemeral.publicKey.rawRepresentation
        let secret = try extractAndExpand(dh: dh, kemContext: enc + recipient.rawRepresentation, kdf: kdf)
        return (secret, enc)
    }

    /// Decap(enc, skR).
    static func decapsulate(enc: [UInt8], recipient: X25519PrivateKey, kdf: HKDF) throws -> SecretBytes {
        let ephemeral = try X25519PublicKey(rawRepresentation: enc)
        let dh = try recipient.sharedSecret(with: ephemeral)
        return try extractAndExpand(dh: dh, kemContext: enc + recipient.publicKey.rawRepresentation, kdf: kdf)
    }

    private static func extractAndExpand(dh: SecretBytes, kemContext: [UInt8], kdf: HKDF) throws -> SecretBytes {
        let prk = try kdf.labeledExtract(suiteID: suiteID, label: "eae_prk", ikm: dh)
        return try kdf.labeledExpand(
            suiteID: suiteID, prk: prk, label: "shared_secret", info: kemContext, length: 32)
    }
}
