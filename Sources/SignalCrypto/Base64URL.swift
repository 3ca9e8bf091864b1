import Foundation

/// Base64url without padding (RFC 4648 §5), strict on input: only the URL-safe
/// alphabet, no padding, no line breaks.
public enum Base64URL {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
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
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else {
            throw CryptoError.malformedEnvelope("not base64url")
        }
        return Array(data)
    }
}
