import CLibCrypto

/// The AEADs of RFC 9180 §7.3 on libcrypto's EVP ciphers.
enum AEADCipher {
    static func seal(
        _ aead: HPKE.AEAD, key: SecretBytes, nonce: [UInt8], aad: [UInt8], plaintext: UnsafeRawBufferPointer
    ) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plaintext.count + aead.tagLength)
        let ok = key.withUnsafeBytes { key in
            aad.withUnsafeBytes { aad in
                out.withUnsafeMutableBytes { out in
                    ss_aead_seal(
                        LibCrypto.shared.cipher(aead), key.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce,
                        aad.baseAddress?.assumingMemoryBound(to: UInt8.self), aad.count,
                        plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), plaintext.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        guard ok == 1 else { throw CryptoError.libcrypto("\(aead.name) seal: \(LibCrypto.lastError())") }
        return out
    }

    static func open(
        _ aead: HPKE.AEAD, key: SecretBytes, nonce: [UInt8], aad: [UInt8], ciphertext: UnsafeRawBufferPointer
    ) throws -> SecretBytes {
        guard ciphertext.count >= aead.tagLength else { throw CryptoError.authenticationFailed }
        return try SecretBytes(count: ciphertext.count - aead.tagLength) { out in
            let ok = key.withUnsafeBytes { key in
                aad.withUnsafeBytes { aad in
                    ss_aead_open(
                        LibCrypto.shared.cipher(aead), key.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce,
                        aad.baseAddress?.assumingMemoryBound(to: UInt8.self), aad.count,
                        ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self), ciphertext.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
            guard ok == 1 else {
                ERR_clear_error()
                throw CryptoError.authenticationFailed
            }
        }
    }
}
