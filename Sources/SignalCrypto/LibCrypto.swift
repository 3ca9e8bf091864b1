import CLibCrypto

/// Algorithm handles fetched from libcrypto once per process: fetching is the costly
/// part of an OpenSSL 3 call, so no seal or open fetches anything again.
final class LibCrypto: @unchecked Sendable {
    // All handles are created in `init` and never mutated; OpenSSL allows concurrent
    // use of fetched algorithms.
    let hmac: OpaquePointer
    private let ciphers: [HPKE.AEAD: OpaquePointer]

    static let shared: LibCrypto = {
        do {
            return try LibCrypto()
        } catch {
            fatalError("\(error): is OpenSSL 3 libcrypto installed with its default provider?")
        }
    }()

    private init() throws {
        guard let hmac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            throw CryptoError.libcrypto("cannot fetch HMAC")
        }
        self.hmac = hmac
        var ciphers: [HPKE.AEAD: OpaquePointer] = [:]
        for aead in HPKE.AEAD.allCases {
            let name: String
            switch aead {
            case .aes128GCM: name = "AES-128-GCM"
            case .aes256GCM: name = "AES-256-GCM"
            case .chaCha20Poly1305: name = "ChaCha20-Poly1305"
            }
            guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else {
                throw CryptoError.libcrypto("cannot fetch \(name)")
            }
            ciphers[aead] = cipher
        }
        self.ciphers = ciphers
    }

    func cipher(_ aead: HPKE.AEAD) -> OpaquePointer {
        // Every case was fetched in init, or init threw.
        ciphers[aead].unsafelyUnwrapped
    }

    /// The reason libcrypto gave for its last failure, for error messages.
    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no reason given" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        ERR_clear_error()
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
