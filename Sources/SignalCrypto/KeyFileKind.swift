import CLibCrypto

extension X25519PublicKey {
    /// Reads a PEM public key ("BEGIN PUBLIC KEY", as `openssl pkey -pubout` writes it) that
    /// must be X25519.
    public init(pemRepresentation pem: [UInt8]) throws {
        guard let key = PEMKeys.readPublicKey(pem) else {
            throw CryptoError.invalidPublicKey("not a PEM public key")
        }
        try self.init(rawRepresentation: key.x25519PublicBytes(invalid: CryptoError.invalidPublicKey))
    }
}

extension KeyFiles {
    /// What a key file holds, told from its contents rather than its name.
    public enum Kind: Equatable, Sendable {
        /// PEM "PRIVATE KEY" text: read it with `readPrivateKey`, which checks its mode.
        case privateKey
        /// PEM "PUBLIC KEY" text, and the key it holds.
        case publicKey(X25519PublicKey)
        /// One RFC 9458 key configuration or an `application/ohttp-keys` list.
        case keyConfigs([KeyConfig])
        /// Anything else, with why it is none of the above.
        case notAKeyFile(String)
    }

    /// Tells what the file at `path` is without reading a private key's secret.
    public static func kind(at path: String) throws -> Kind {
        let bytes = try readFile(at: path, secret: false)
        // A private key's bytes stay in their wiped buffer: only its marker is looked at.
        if bytes.withUnsafeBytes({ contains($0, "PRIVATE KEY-----") }) { return .privateKey }
        let text = bytes.withUnsafeBytes { Array($0) }
        if text.withUnsafeBytes({ contains($0, "-----BEGIN PUBLIC KEY-----") }) {
            do {
                return .publicKey(try X25519PublicKey(pemRepresentation: text))
            } catch {
                return .notAKeyFile("a PEM public key, but \(error)")
            }
        }
        if text.withUnsafeBytes({ contains($0, "-----BEGIN ") }) {
            return .notAKeyFile("PEM, but neither an X25519 private nor public key")
        }
        do {
            return .keyConfigs(try text.withUnsafeBytes { try KeyConfig.decodeAny($0) })
        } catch {
            return .notAKeyFile("not PEM, and not a key configuration (\(error))")
        }
    }

    private static func contains(_ bytes: UnsafeRawBufferPointer, _ marker: String) -> Bool {
        let marker = Array(marker.utf8)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { start in
            marker.indices.allSatisfy { bytes[start + $0] == marker[$0] }
        }
    }
}
