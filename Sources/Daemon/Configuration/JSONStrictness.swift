import FoundationEssentials

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
        var kind: Kind
    }

    /// Which rule was broken; its raw value says it in an error.
    enum Kind: String {
        case trailingComma = "a trailing comma"
        case nameTwice = "appears twice in one object"
    }

    /// The first violation in `bytes`, or nil.
    static func firstViolation(in bytes: some Collection<UInt8>) -> Violation? {
        var scanner = Scanner()
        return walk(bytes, &scanner)
    }

    /// Where each name is written, by its key path (`adapters[1].timeout_ms`): to tell
    /// failures apart in the order of the text. The text is JSON without violations.
    static func nameOffsets(in bytes: some Collection<UInt8>) -> [String: Int] {
        var scanner = Scanner()
        scanner.nameOffsets = [:]
        _ = walk(bytes, &scanner)
        return scanner.nameOffsets ?? [:]
    }

    private static func walk(_ bytes: some Collection<UInt8>, _ scanner: inout Scanner) -> Violation? {
        var index = bytes.startIndex
        var offset = 0
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // Only a name's bytes are kept: values are skipped, not copied.
                let isName = scanner.expectsName
                var text: [UInt8] = []
                let start = offset
                bytes.formIndex(after: &index)
                offset += 1
                var escaped = false
                while index != bytes.endIndex {
                    let inner = bytes[index]
                    if !escaped && inner == UInt8(ascii: "\"") { break }
                    escaped = !escaped && inner == UInt8(ascii: "\\")
                    if isName { text.append(inner) }
                    bytes.formIndex(after: &index)
                    offset += 1
                }
                if let violation = scanner.string(text, at: start) { return violation }
            } else if let violation = scanner.structural(byte, at: offset) {
                return violation
            }
            if scanner.gaveUp { return nil }
            if index != bytes.endIndex { bytes.formIndex(after: &index) }
            offset += 1
        }
        return nil
    }

    /// Deeper than this, the walk stops and leaves the text to Foundation, which refuses it
    /// (its own limit is 512): a body of 64 KiB of `[` costs no more than a shallow one.
    static let maximumDepth = 512

    /// The nesting seen so far and the last token that was not whitespace. A frame keeps only
    /// its own name or index; a path is spelled only for a violation.
    private struct Scanner {
        enum Frame {
            /// An object: its names so far, whether a name comes next, and the last name.
            case object(names: Set<String>, expectsName: Bool, lastName: String)
            case array(index: Int)
        }
        var frames: [Frame] = []
        var last: UInt8 = 0
        var lastOffset = 0
        /// Set when the text nests deeper than `maximumDepth`: nothing more is checked.
        var gaveUp = false
        /// Each name's key path and offset, when asked for.
        var nameOffsets: [String: Int]?

        /// Whether a string that starts now is an object's name.
        var expectsName: Bool {
            guard !gaveUp, case .object(_, true, _)? = frames.last else { return false }
            return true
        }

        /// The key path of the value the frame at `depth` is (the document for 0).
        func path(ofFrameAt depth: Int) -> String {
            var text = ""
            for frame in frames.prefix(depth) {
                switch frame {
                case .object(_, _, let name): text += text.isEmpty ? name : ".\(name)"
                case .array(let index): text += "[\(index)]"
                }
            }
            return text
        }

        mutating func string(_ text: [UInt8], at offset: Int) -> Violation? {
            defer { note(UInt8(ascii: "\""), at: offset) }
            guard expectsName, case .object(var names, _, _)? = frames.last else { return nil }
            let name = Self.decodedName(text)
            guard names.insert(name).inserted else {
                let path = path(ofFrameAt: frames.count - 1)
                return Violation(
                    path: path.isEmpty ? name : "\(path).\(name)", offset: offset, kind: .nameTwice)
            }
            frames[frames.count - 1] = .object(names: names, expectsName: false, lastName: name)
            if nameOffsets != nil {
                let path = path(ofFrameAt: frames.count)
                nameOffsets?[path] = offset
            }
            return nil
        }

        mutating func structural(_ byte: UInt8, at offset: Int) -> Violation? {
            guard !gaveUp else { return nil }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard frames.count < JSONStrictness.maximumDepth else {
                    gaveUp = true
                    return nil
                }
                // An element of an array has a place of its own (`adapters[1]`): where a key it
                // lacks is reported.
                if nameOffsets != nil, case .array? = frames.last {
                    let element = path(ofFrameAt: frames.count)
                    nameOffsets?[element] = offset
                }
                frames.append(
                    byte == UInt8(ascii: "{") ? .object(names: [], expectsName: true, lastName: "") : .array(index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if last == UInt8(ascii: ","), !frames.isEmpty {
                    return Violation(
                        path: path(ofFrameAt: frames.count - 1), offset: lastOffset,
                        kind: .trailingComma)
                }
                _ = frames.popLast()
            case UInt8(ascii: ","):
                switch frames.last {
                case .object(let names, _, let name)?:
                    frames[frames.count - 1] = .object(names: names, expectsName: true, lastName: name)
                case .array(let index)?:
                    frames[frames.count - 1] = .array(index: index + 1)
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
