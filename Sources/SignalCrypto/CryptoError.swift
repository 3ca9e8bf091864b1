/// Why a cryptographic operation, a key or an envelope was refused. Each case's
/// description is one line meant for a person: it names what was wrong, never a secret.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An algorithm identifier this implementation does not support (`kind` is "kem", "kdf" or "aead").
    case unsupportedAlgorithm(kind: String, id: UInt16)
    /// A public key that is malformed, of low order or all zeros (RFC 9180 §7.1.4).
    case invalidPublicKey(String)
    /// A private key that is not an X25519 key or cannot be read.
    case invalidPrivateKey(String)
    /// A key configuration that is not a valid RFC 9458 §3 encoding, or offers nothing usable.
    case invalidKeyConfig(String)
    /// An envelope that is not well-formed: bad base64url, too short, bad framing.
    case malformedEnvelope(String)
    /// An envelope sealed for a key id the opener does not hold.
    case unknownKeyID(UInt8)
    /// The AEAD tag did not verify: the wrong private key, or the envelope was altered.
    case authenticationFailed
    /// A context sealed or opened the largest number of messages its nonce allows.
    case messageLimitReached
    /// A private key file that group or others can read.
    case insecureKeyFile(path: String, mode: UInt32)
    /// A key file that cannot be read or written.
    case keyFile(path: String, reason: String)
    /// libcrypto itself failed where it should not (out of memory, missing provider).
    case libcrypto(String)

    public var description: String {
        switch self {
        case .unsupportedAlgorithm(let kind, let id):
            return "unsupported \(kind) id 0x\(hex16(id)) (supported: \(supportedList(kind)))"
        case .invalidPublicKey(let why):
            return "invalid public key: \(why)"
        case .invalidPrivateKey(let why):
            return "invalid private key: \(why)"
        case .invalidKeyConfig(let why):
            return "invalid key configuration: \(why)"
        case .malformedEnvelope(let why):
            return "malformed envelope: \(why)"
        case .unknownKeyID(let id):
            return "envelope is sealed for key id \(id), which this key does not have"
        case .authenticationFailed:
            return "envelope does not open: wrong key, or the envelope was altered"
        case .messageLimitReached:
            return "HPKE context has sealed the most messages its nonce allows"
        case .insecureKeyFile(let path, let mode):
            return
                "\(path): private key file is readable by group or others (mode \(String(mode, radix: 8))); run chmod 600 \(path)"
        case .keyFile(let path, let reason):
            return "\(path): \(reason)"
        case .libcrypto(let what):
            return "libcrypto failed: \(what)"
        }
    }
}

func hex16(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

private func supportedList(_ kind: String) -> String {
    switch kind {
    case "kem": return HPKE.KEM.allCases.map(\.description).joined(separator: ", ")
    case "kdf": return HPKE.KDF.allCases.map(\.description).joined(separator: ", ")
    default: return HPKE.AEAD.allCases.map(\.description).joined(separator: ", ")
    }
}
