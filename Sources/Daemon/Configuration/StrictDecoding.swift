import FoundationEssentials
import SharedTypes

/// Strict JSON documents: the configuration file and request bodies, read whole.
extension StrictJSON {
    /// `data` decoded, or the first failure: a syntax error, a trailing comma or a name given
    /// twice (with its line and column), an unknown key, a value that does not fit.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let violation = JSONStrictness.firstViolation(in: data) {
            let position = position(ofOffset: violation.offset, in: data)
            switch violation.kind {
            case .trailingComma:
                let place = violation.path.isEmpty ? "the document" : violation.path
                throw Failure(path: "", reason: "not valid JSON (\(position)): \(violation.kind.rawValue) in \(place)")
            case .nameTwice:
                throw Failure(path: violation.path, reason: "\(violation.kind.rawValue) (\(position))")
            }
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let failure as Failure {
            throw failure
        } catch let error as DecodingError {
            throw describe(error, in: data)
        }
    }

    /// `data` decoded, or every failure found, in the order of the text: types that read their
    /// parts with `part(_:default:)` or `setting(_:default:)` (`@Settings`) go on after a
    /// failure in one part, so that one reading of a configuration file lists all that is wrong
    /// with it, top to bottom.
    static func decodeReportingEvery<T: Decodable>(_ type: T.Type, from data: Data) throws(Failures) -> T {
        let log = FailureLog()
        var found: [Failure]
        do {
            let value = try FailureLog.$current.withValue(log) { try decode(type, from: data) }
            if log.all.isEmpty { return value }
            found = log.all
        } catch let failure as Failure {
            found = log.all + [failure]
        } catch {
            found = log.all + [Failure(path: "", reason: "\(error)")]
        }
        throw Failures(all: inTextOrder(found, in: data))
    }

    /// `failures` sorted by where their key is written (a missing key by its object's place);
    /// those at one place keep the order found.
    static func inTextOrder(_ failures: [Failure], in data: Data) -> [Failure] {
        let offsets = JSONStrictness.nameOffsets(in: data)
        func offset(_ path: String) -> Int {
            var path = Substring(path)
            while !path.isEmpty {
                if let offset = offsets[String(path)] { return offset }
                guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
                path = path[..<cut]
            }
            return 0
        }
        return failures.enumerated()
            .sorted { (offset($0.element.path), $0.offset) < (offset($1.element.path), $1.offset) }
            .map(\.element)
    }

    /// Where `data` stops being JSON, as "line L, column C" (both from 1); nil when it is JSON,
    /// "" when it ends too soon (there is no byte to point at).
    static func syntaxErrorPosition(in data: Data) -> String? {
        switch JSONSyntax.check(data) {
        case .valid: nil
        case .truncated: ""
        case .unexpected(let offset): position(ofOffset: offset, in: data)
        }
    }

    /// "line L, column C" (both from 1) of the byte at `offset`.
    static func position(ofOffset offset: Int, in data: Data) -> String {
        let before = data.prefix(offset)
        let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return "line \(line), column \(column)"
    }

    /// A decoding error of `data` as a failure: the document's own (a syntax error) with its
    /// line and column.
    static func describe(_ error: DecodingError, in data: Data) -> Failure {
        guard case .dataCorrupted(let context) = error, context.codingPath.isEmpty else { return describe(error) }
        let position = syntaxErrorPosition(in: data)
        return Failure(
            path: "",
            reason: position.map { $0.isEmpty ? "not valid JSON" : "not valid JSON (\($0))" }
                ?? "a value does not fit its field")
    }
}
