import CLibCrypto

/// An ECDSA P-256 key that signs server-side-verification (SSV) callbacks: SHA-256, the
/// signature in DER, as Google signs its rewarded ads' callbacks and Tink's
/// `RewardedAdsVerifier` checks them. Held by libcrypto, which wipes it when freed.
public struct SSVSigningKey: Sendable {
    let key: EVPKey

    /// A fresh random key.
    public init() throws {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw CryptoError.libcrypto("EVP_PKEY_CTX_new_from_name: \(LibCrypto.lastError())")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
            EVP_PKEY_generate(ctx, &pkey) == 1, let pkey
        else {
            throw CryptoError.libcrypto("P-256 key generation: \(LibCrypto.lastError())")
        }
        key = EVPKey(pkey)
    }

    /// Reads a PEM private key (PKCS#8 or SEC 1) that must be an EC key on P-256.
    public init(pemRepresentation pem: SecretBytes) throws {
        guard let key = PEMKeys.readPrivateKey(pem) else {
            throw CryptoError.invalidPrivateKey("not a PEM private key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_is_a(key.pointer, "EC") == 1,
            EVP_PKEY_get_group_name(key.pointer, &name, name.count, &length) == 1,
            ["prime256v1", "P-256", "secp256r1"].contains(
                String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        else {
            ERR_clear_error()
            throw CryptoError.invalidPrivateKey(
                "an SSV signing key is an EC key on P-256 (openssl ecparam -name prime256v1)")
        }
        self.key = key
    }

    /// The key as an unencrypted PKCS#8 PEM ("BEGIN PRIVATE KEY").
    public func pemRepresentation() throws -> SecretBytes { try PEMKeys.pkcs8(key) }

    /// The public key as SubjectPublicKeyInfo DER: what a verifier key set carries in `base64`.
    public func publicKeyDER() throws -> [UInt8] {
        let length = i2d_PUBKEY(key.pointer, nil)
        guard length > 0 else { throw CryptoError.libcrypto("i2d_PUBKEY: \(LibCrypto.lastError())") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(key.pointer, &cursor)
        }
        guard written == length else { throw CryptoError.libcrypto("i2d_PUBKEY: \(LibCrypto.lastError())") }
        return der
    }

    /// The public key as PEM ("BEGIN PUBLIC KEY"): what a verifier key set carries in `pem`.
    public func publicKeyPEM() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.libcrypto("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PUBKEY(bio, key.pointer) == 1 else {
            throw CryptoError.libcrypto("PEM_write_bio_PUBKEY: \(LibCrypto.lastError())")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = ss_bio_mem_data(bio, &data)
        guard length > 0, let data else { throw CryptoError.libcrypto("empty PEM") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    /// The ECDSA signature of SHA-256(`message`), DER-encoded.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.libcrypto("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            throw CryptoError.libcrypto("EVP_DigestSignInit: \(LibCrypto.lastError())")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw CryptoError.libcrypto("EVP_DigestSign: \(LibCrypto.lastError())")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw CryptoError.libcrypto("EVP_DigestSign: \(LibCrypto.lastError())")
        }
        return Array(signature.prefix(length))
    }
}

extension KeyFiles {
    /// Reads a PEM P-256 SSV signing key, refusing a file that group or others can read.
    public static func readSSVSigningKey(at path: String) throws -> SSVSigningKey {
        try readKey(at: path, secret: true) { try SSVSigningKey(pemRepresentation: $0) }
    }

    public static func writeSSVSigningKey(_ key: SSVSigningKey, to path: String, overwrite: Bool) throws {
        let pem = try key.pemRepresentation()
        try pem.withUnsafeBytes { try writeFile($0, to: path, mode: 0o600, overwrite: overwrite) }
    }
}
