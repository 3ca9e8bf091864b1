extension Array where Element == UInt8 {
    /// Bytes from hex digits ("0a1b..."); nil for an odd length or a non-hex character.
    package init?(hexString: String) {
        let digits = Array(hexString.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self = bytes
    }

    /// The bytes as lowercase hex digits.
    package var hexString: String {
        let alphabet = Array("0123456789abcdef".utf8)
        return String(decoding: flatMap { [alphabet[Int($0 >> 4)], alphabet[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}

private func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
    default: return nil
    }
}
