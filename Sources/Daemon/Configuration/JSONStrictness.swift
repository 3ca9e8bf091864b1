import Foundation

/// Two rules of RFC 8259 that Foundation's parser lets through: no comma before a closing `}`
/// or `]`, and no name twice in one object (which Foundation reads as its first value, a guess).
///
/// Not a parser: Foundation reads every value. This walks the bytes once knowing only strings,
/// brackets, commas and colons, and leaves anything else that is malformed to Foundation.
enum JSONStrictness {
    struct Violation: Equatable {
        /// The key path of the duplicate name or of the object or array the comma ends.
        var path: String
        /// Where in the text, from 0.
        var offset: Int
        var reason: String
    }

    static let trailingComma = "a trailing comma"
    static let nameTwice = "appears twice in one object"

    /// The first violation in `bytes`, or nil.
    static func firstViolation(in bytes: some Collection<UInt8>) -> Violation? {
        var scanner = Scanner()
        var index = bytes.startIndex
        var offset = 0
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                var text: [UInt8] = []
                let start = offset
                bytes.formIndex(after: &index)
                offset += 1
                var escaped = false
                while index != bytes.endIndex {
                    let inner = bytes[index]
                    if !escaped && inner == UInt8(ascii: "\"") { break }
                    escaped = !escaped && inner == UInt8(ascii: "\\")
                    text.append(inner)
                    bytes.formIndex(after: &index)
                    offset += 1
                }
                if let violation = scanner.string(text, at: start) { return violation }
            } else if let violation = scanner.structural(byte, at: offset) {
                return violation
            }
            if index != bytes.endIndex { bytes.formIndex(after: &index) }
            offset += 1
        }
        return nil
    }

    /// The nesting seen so far and the last token that was not whitespace.
    private struct Scanner {
        enum Frame {
            /// An object: its names so far, and whether a name comes next.
            case object(path: String, names: Set<String>, expectsName: Bool, lastName: String)
            case array(path: String, index: Int)
        }
        var frames: [Frame] = []
        var last: UInt8 = 0
        var lastOffset = 0

        /// The path of a value that starts now, below the innermost frame.
        var pathHere: String {
            switch frames.last {
            case .object(let path, _, _, let name)?: return path.isEmpty ? name : "\(path).\(name)"
            case .array(let path, let index)?: return "\(path)[\(index)]"
            case nil: return ""
            }
        }

        mutating func string(_ text: [UInt8], at offset: Int) -> Violation? {
            defer { note(UInt8(ascii: "\""), at: offset) }
            guard case .object(let path, var names, true, _)? = frames.last else { return nil }
            let name = Self.decodedName(text)
            let full = path.isEmpty ? name : "\(path).\(name)"
            guard names.insert(name).inserted else {
                return Violation(path: full, offset: offset, reason: JSONStrictness.nameTwice)
            }
            frames[frames.count - 1] = .object(path: path, names: names, expectsName: false, lastName: name)
            return nil
        }

        mutating func structural(_ byte: UInt8, at offset: Int) -> Violation? {
            switch byte {
            case UInt8(ascii: "{"):
                frames.append(.object(path: pathHere, names: [], expectsName: true, lastName: ""))
            case UInt8(ascii: "["):
                frames.append(.array(path: pathHere, index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if last == UInt8(ascii: ","), let frame = frames.last {
                    let path: String
                    switch frame {
                    case .object(let inner, _, _, _), .array(let inner, _): path = inner
                    }
                    return Violation(path: path, offset: lastOffset, reason: JSONStrictness.trailingComma)
                }
                _ = frames.popLast()
            case UInt8(ascii: ","):
                switch frames.last {
                case .object(let path, let names, _, let name)?:
                    frames[frames.count - 1] = .object(path: path, names: names, expectsName: true, lastName: name)
                case .array(let path, let index)?:
                    frames[frames.count - 1] = .array(path: path, index: index + 1)
                case nil: break
                }
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                return nil
            default: break
            }
            note(byte, at: offset)
            return nil
        }

        private mutating func note(_ byte: UInt8, at offset: Int) {
            last = byte
            lastOffset = offset
        }

        /// A name as JSON means it: escapes (`\u0061`) read, so that "a" and "\u0061" are one name.
        private static func decodedName(_ text: [UInt8]) -> String {
            guard text.contains(UInt8(ascii: "\\")) else { return String(decoding: text, as: UTF8.self) }
            let quoted = [UInt8(ascii: "\"")] + text + [UInt8(ascii: "\"")]
            return (try? JSONDecoder().decode(String.self, from: Data(quoted))) ?? String(decoding: text, as: UTF8.self)
        }
    }
}
