/// Percent-encoding (RFC 3986 §2.1) without Foundation: what stays is RFC 3986's unreserved
/// ASCII (letters, digits, `-`, `.`, `_`, `~`), every other UTF-8 byte becomes `%XX`.
public enum PercentEncoding {
    /// A query value or a macro's value: everything but the unreserved characters encoded.
    public static func unreserved(_ text: String) -> String {
        encode(text) { $0 == UInt8(ascii: ".") }
    }

    /// One path segment or query component: the dot encoded too, so that no value becomes a
    /// `.` or `..` segment that a client or proxy would normalize away.
    public static func segment(_ text: String) -> String {
        encode(text) { _ in false }
    }

    /// The text `%XX` sequences stand for; nil when a `%` is not followed by two hex digits or
    /// the bytes are not UTF-8 (Foundation's `removingPercentEncoding`).
    public static func decoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var input = text.utf8.makeIterator()
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = input.next().flatMap(hexValue), let low = input.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func encode(_ text: String, keeping kept: (UInt8) -> Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case _ where kept(byte):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
