import CLibCrypto

/// PEM keys through libcrypto: private keys on its secure heap, read (PKCS#8 or OpenSSL's
/// traditional forms) and written (unencrypted PKCS#8), for every kind of key the daemon
/// holds; and public keys, read.
enum PEMKeys {
    /// The key in `pem`, or nil when it holds none (libcrypto's error queue cleared).
    static func readPrivateKey(_ pem: SecretBytes) -> EVPKey? {
        pem.withUnsafeBytes { read($0, through: BIO_s_secmem()) { PEM_read_bio_PrivateKey($0, nil, nil, nil) } }
    }

    /// The public key in `pem` ("BEGIN PUBLIC KEY"), or nil when it holds none.
    static func readPublicKey(_ pem: [UInt8]) -> EVPKey? {
        pem.withUnsafeBytes { read($0, through: BIO_s_mem()) { PEM_read_bio_PUBKEY($0, nil, nil, nil) } }
    }

    /// What `parse` reads from `bytes` in a memory BIO of `method`; nil, with libcrypto's error
    /// queue cleared, when it reads nothing.
    private static func read(
        _ bytes: UnsafeRawBufferPointer, through method: OpaquePointer?, _ parse: (OpaquePointer) -> OpaquePointer?
    ) -> EVPKey? {
        let pkey: OpaquePointer? = {
            guard let bio = BIO_new(method) else { return nil }
            defer { BIO_free(bio) }
            guard BIO_write(bio, bytes.baseAddress, Int32(bytes.count)) == Int32(bytes.count) else { return nil }
            return parse(bio)
        }()
        guard let pkey else {
            ERR_clear_error()
            return nil
        }
        return EVPKey(pkey)
    }

    /// `key` as an unencrypted PKCS#8 PEM ("BEGIN PRIVATE KEY"), as `openssl pkey` reads it.
    static func pkcs8(_ key: EVPKey) throws -> SecretBytes {
        guard let bio = BIO_new(BIO_s_secmem()) else { throw CryptoError.libcrypto("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil) == 1 else {
            throw CryptoError.libcrypto("PEM_write_bio_PKCS8PrivateKey: \(LibCrypto.lastError())")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = ss_bio_mem_data(bio, &data)
        guard length > 0, let data else { throw CryptoError.libcrypto("empty PEM") }
        return SecretBytes(UnsafeRawBufferPointer(start: data, count: length))
    }
}
