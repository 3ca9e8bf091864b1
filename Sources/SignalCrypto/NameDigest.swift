/// HMAC-SHA256 of `message` under `key`, in lowercase hex: a fixed-length name, of nothing but
/// hex digits, for a string that must not be trusted as a name (a file named after an id).
package func hmacSHA256Hex(key: [UInt8], message: [UInt8]) throws -> String {
    let hkdf = try HKDF()
    let digest = try message.withUnsafeBytes { try hkdf.extract(salt: SecretBytes(key), ikm: $0) }
    return digest.withUnsafeBytes { Array($0) }.hexString
}
