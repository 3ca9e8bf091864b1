import FoundationEssentials

/// Base64url without padding (RFC 4648 §5), strict on input: only the URL-safe
/// alphabet, no padding, no line breaks.
public enum Base64URL {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        // Byte by byte: Foundation's replacingOccurrences goes through NSString on Linux, and
        // this runs for every envelope sealed.
        var text = Array(Data(bytes).base64EncodedString().utf8)
        while text.last == UInt8(ascii: "=") { text.removeLast() }
        for index in text.indices {
            switch text[index] {
            case UInt8(ascii: "+"): text[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): text[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func decode(_ text: String) throws -> [UInt8] {
        let allowed = text.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2D || byte == 0x5F
        }
        guard allowed else {
            throw CryptoError.malformedEnvelope("not base64url: only A-Z a-z 0-9 - _ are allowed, without padding")
        }
        guard text.utf8.count % 4 != 1 else {
            throw CryptoError.malformedEnvelope(
                "not base64url: \(text.utf8.count) characters cannot be a whole number of bytes")
        }
        var standard = text.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): return UInt8(ascii: "+")
            case UInt8(ascii: "_"): return UInt8(ascii: "/")
            default: return byte
            }
        }
        standard += Array(repeating: UInt8(ascii: "="), count: (4 - standard.count % 4) % 4)
        guard let data = Data(base64Encoded: Data(standard)) else {
            throw CryptoError.malformedEnvelope("not base64url")
        }
        return Array(data)
    }
}
