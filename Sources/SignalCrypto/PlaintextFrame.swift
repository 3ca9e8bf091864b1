/// The framing that hides a payload's size: version 0x01, the payload length as 4 bytes
/// big-endian, the payload, then zeros up to the next bucket (256, 512, 1024, 2048,
/// 4096 bytes, then multiples of 4096), so a ciphertext's length tells only its bucket.
public enum PlaintextFrame {
    public static let version: UInt8 = 0x01
    static let headerLength = 5

    /// The framed length for a payload of `count` bytes.
    public static func bucket(forPayloadCount count: Int) -> Int {
        let framed = headerLength + count
        for size in [256, 512, 1024, 2048, 4096] where framed <= size {
            return size
        }
        return (framed + 4095) / 4096 * 4096
    }

    public static func frame(_ payload: [UInt8]) throws -> SecretBytes {
        guard payload.count <= Int(UInt32.max) else {
            throw CryptoError.malformedEnvelope("payload of \(payload.count) bytes is over the 4 GiB frame limit")
        }
        return SecretBytes(count: bucket(forPayloadCount: payload.count)) { out in
            out[0] = version
            out.storeBytes(of: UInt32(payload.count).bigEndian, toByteOffset: 1, as: UInt32.self)
            payload.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: out[headerLength...]).copyMemory(from: source)
            }
        }
    }

    /// The payload inside `framed`; refuses a wrong version, a length past the end or
    /// non-zero padding.
    public static func unframe(_ framed: SecretBytes) throws -> SecretBytes {
        try framed.withUnsafeBytes { bytes in
            guard bytes.count >= headerLength else {
                throw CryptoError.malformedEnvelope(
                    "plaintext of \(bytes.count) bytes is shorter than its frame header")
            }
            guard bytes[0] == version else {
                throw CryptoError.malformedEnvelope("unknown plaintext frame version \(bytes[0])")
            }
            let length = Int(bytes[1..<5].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) })
            guard length <= bytes.count - headerLength else {
                throw CryptoError.malformedEnvelope(
                    "frame says \(length) payload bytes but holds \(bytes.count - headerLength)")
            }
            let end = headerLength + length
            guard bytes[end...].allSatisfy({ $0 == 0 }) else {
                throw CryptoError.malformedEnvelope("non-zero padding after the payload")
            }
            return SecretBytes(bytes[headerLength..<end])
        }
    }
}
