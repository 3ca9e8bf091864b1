import CLibCrypto

/// An `EVP_PKEY` handle, freed with its owner. Immutable after creation.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// The 32 bytes of this X25519 key's public half; `invalid` makes the error for a key of
    /// another kind, or one libcrypto cannot read them from.
    func x25519PublicBytes(invalid: (String) -> CryptoError) throws -> [UInt8] {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_X25519 else { throw invalid("not an X25519 key") }
        var raw = [UInt8](repeating: 0, count: 32)
        var length = raw.count
        guard EVP_PKEY_get_raw_public_key(pointer, &raw, &length) == 1, length == 32 else {
            throw invalid("cannot read its public key: \(LibCrypto.lastError())")
        }
        return raw
    }
}

/// An X25519 public key: a recipient's key, or the sender's ephemeral key (`enc`).
public struct X25519PublicKey: Sendable, Equatable {
    public let rawRepresentation: [UInt8]
    /// The libcrypto handle, made when the key is parsed (it is then used as a peer); a
    /// private key's own public half has none until it is needed, sparing every seal
    /// one handle for its ephemeral key.
    private let handle: EVPKey?

    /// Parses the 32-byte encoding; an all-zero key is refused here, other keys of low
    /// order when a shared secret is derived with them (RFC 9180 §7.1.4).
    public init(rawRepresentation bytes: some Collection<UInt8>) throws {
        let raw = Array(bytes)
        guard raw.count == 32 else {
            throw CryptoError.invalidPublicKey("an X25519 public key has 32 bytes, not \(raw.count)")
        }
        guard raw.contains(where: { $0 != 0 }) else {
            throw CryptoError.invalidPublicKey("all zeros")
        }
        guard let pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, raw, raw.count) else {
            throw CryptoError.invalidPublicKey(LibCrypto.lastError())
        }
        self.rawRepresentation = raw
        self.handle = EVPKey(pkey)
    }

    /// The public half read off a private key: known valid, so no handle yet.
    fileprivate init(trustedRawRepresentation raw: [UInt8]) {
        self.rawRepresentation = raw
        self.handle = nil
    }

    /// The handle for use as a DH peer.
    func evpKey() throws -> EVPKey {
        if let handle { return handle }
        return try X25519PublicKey(rawRepresentation: rawRepresentation).evpKey()
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.rawRepresentation == rhs.rawRepresentation
    }
}

/// An X25519 private key, held by libcrypto (which wipes it when freed).
public struct X25519PrivateKey: Sendable {
    let key: EVPKey
    public let publicKey: X25519PublicKey

    /// A fresh random key pair.
    public init() throws {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_X25519, nil) else {
            throw CryptoError.libcrypto("EVP_PKEY_CTX_new_id: \(LibCrypto.lastError())")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_keygen(ctx, &pkey) == 1, let pkey else {
            throw CryptoError.libcrypto("X25519 key generation: \(LibCrypto.lastError())")
        }
        try self.init(owning: pkey)
    }

    /// The key whose 32 secret bytes are `secret`.
    public init(rawRepresentation secret: SecretBytes) throws {
        guard secret.count == 32 else {
            throw CryptoError.invalidPrivateKey("an X25519 private key has 32 bytes, not \(secret.count)")
        }
        let pkey = secret.withUnsafeBytes {
            EVP_PKEY_new_raw_private_key(
                EVP_PKEY_X25519, nil, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
        }
        guard let pkey else { throw CryptoError.invalidPrivateKey(LibCrypto.lastError()) }
        try self.init(owning: pkey)
    }

    /// Takes ownership of `pkey`, which must be an X25519 key.
    init(owning pkey: OpaquePointer) throws {
        try self.init(owning: EVPKey(pkey))
    }

    /// Holds `key`, which must be an X25519 key.
    init(owning key: EVPKey) throws {
        self.publicKey = X25519PublicKey(
            trustedRawRepresentation: try key.x25519PublicBytes(invalid: CryptoError.invalidPrivateKey))
        self.key = key
    }

    /// The 32 secret bytes, for DeriveKeyPair's tests and nothing else.
    package var rawRepresentation: SecretBytes {
        get throws {
            try SecretBytes(count: 32) { out in
                var length = out.count
                guard
                    EVP_PKEY_get_raw_private_key(
                        key.pointer, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
                else { throw CryptoError.libcrypto("EVP_PKEY_get_raw_private_key") }
            }
        }
    }

    /// DH(sk, pk): the X25519 shared secret. Fails for peer keys of low order, whose
    /// result would be all zeros (RFC 9180 §7.1.4).
    public func sharedSecret(with peer: X25519PublicKey) throws -> SecretBytes {
        let peerKey = try peer.evpKey()
        guard let ctx = EVP_PKEY_CTX_new(key.pointer, nil) else {
            throw CryptoError.libcrypto("EVP_PKEY_CTX_new: \(LibCrypto.lastError())")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, peerKey.pointer) == 1 else {
            ERR_clear_error()
            throw CryptoError.invalidPublicKey("of low order: no shared secret with it")
        }
        let secret = try SecretBytes(count: 32) { out in
            var length = out.count
            guard
                EVP_PKEY_derive(ctx, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1,
                length == 32
            else {
                ERR_clear_error()
                throw CryptoError.invalidPublicKey("of low order: no shared secret with it")
            }
        }
        let allZero = secret.withUnsafeBytes { bytes in bytes.allSatisfy { $0 == 0 } }
        guard !allZero else { throw CryptoError.invalidPublicKey("of low order: the shared secret is zero") }
        return secret
    }
}
