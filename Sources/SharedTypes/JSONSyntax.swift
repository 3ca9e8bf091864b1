/// Where a text stops being JSON (RFC 8259, a scalar at the top allowed, as the decoder allows):
/// the decoder on FoundationEssentials says only that it is not, so an error's line and column
/// are found here. One pass, no recursion: a deep text costs its bytes, not the stack.
public enum JSONSyntax {
    /// What a text is.
    public enum Verdict: Equatable, Sendable {
        case valid
        /// The byte at this offset (from 0) cannot come where it is.
        case unexpected(at: Int)
        /// The text ends before its value does.
        case truncated
    }

    public static func check(_ bytes: some Collection<UInt8>) -> Verdict {
        var scanner = Scanner(bytes: Array(bytes))
        return scanner.run()
    }

    private struct Scanner {
        /// What may come next.
        enum Expect {
            case value, valueOrClose, name, nameOrClose, colon, commaOrClose, end
        }
        let bytes: [UInt8]
        var index = 0
        var expect = Expect.value
        /// The open containers: `{` or `[`.
        var open: [UInt8] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func run() -> Verdict {
            while index < bytes.count {
                let byte = bytes[index]
                if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                    index += 1
                    continue
                }
                if let verdict = step(byte) { return verdict }
            }
            return expect == .end ? .valid : .truncated
        }

        /// Takes the token that starts with `byte`; a verdict when the text is decided.
        private mutating func step(_ byte: UInt8) -> Verdict? {
            let at = index
            switch (expect, byte) {
            case (.nameOrClose, UInt8(ascii: "}")), (.valueOrClose, UInt8(ascii: "]")),
                (.commaOrClose, UInt8(ascii: "}")) where open.last == UInt8(ascii: "{"),
                (.commaOrClose, UInt8(ascii: "]")) where open.last == UInt8(ascii: "["):
                open.removeLast()
                index += 1
                valueEnded()
            case (.commaOrClose, UInt8(ascii: ",")):
                expect = open.last == UInt8(ascii: "{") ? .name : .value
                index += 1
            case (.colon, UInt8(ascii: ":")):
                expect = .value
                index += 1
            case (.name, UInt8(ascii: "\"")), (.nameOrClose, UInt8(ascii: "\"")):
                if let verdict = string() { return verdict }
                expect = .colon
            case (.value, _), (.valueOrClose, _):
                return value(byte)
            default:
                return .unexpected(at: at)
            }
            return nil
        }

        private mutating func value(_ byte: UInt8) -> Verdict? {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                open.append(byte)
                expect = byte == UInt8(ascii: "{") ? .nameOrClose : .valueOrClose
                index += 1
                return nil
            case UInt8(ascii: "\""):
                if let verdict = string() { return verdict }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if let verdict = number() { return verdict }
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                for word in ["true", "false", "null"] where word.utf8.first == byte {
                    for expected in word.utf8 {
                        guard index < bytes.count else { return .truncated }
                        guard bytes[index] == expected else { return .unexpected(at: index) }
                        index += 1
                    }
                }
            default:
                return .unexpected(at: index)
            }
            valueEnded()
            return nil
        }

        private mutating func valueEnded() {
            expect = open.isEmpty ? .end : .commaOrClose
        }

        /// A string from its opening quote: escapes as RFC 8259 §7 lists them, no control characters.
        private mutating func string() -> Verdict? {
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return nil
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { return .truncated }
                    switch bytes[index] {
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            index += 1
                            guard index < bytes.count else { return .truncated }
                            guard Character(Unicode.Scalar(bytes[index])).isHexDigit else {
                                return .unexpected(at: index)
                            }
                        }
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        break
                    default:
                        return .unexpected(at: index)
                    }
                case 0..<0x20:
                    return .unexpected(at: index)
                default:
                    break
                }
                index += 1
            }
            return .truncated
        }

        /// A number: `-`? (`0` | a digit 1-9 then digits) (`.` digits)? (`e` or `E`, `+` or `-`?, digits)?
        private mutating func number() -> Verdict? {
            func digits() -> Verdict? {
                let start = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    index += 1
                }
                guard index == start else { return nil }
                return index < bytes.count ? .unexpected(at: index) : .truncated
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if let verdict = digits() {
                return verdict
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                if let verdict = digits() { return verdict }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                if let verdict = digits() { return verdict }
            }
            return nil
        }
    }
}
