import Foundation
import Synchronization

/// JSON decoding that refuses unknown keys and names the offending key path
/// (`adapters[1].timeout_ms`) in every error: for the configuration file and request bodies.
enum StrictJSON {
    struct Failure: Error, CustomStringConvertible {
        /// The key path, such as `adapters[1].timeout_ms`; empty for the document itself.
        var path: String
        var reason: String
        var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
    }

    /// Every failure one decoding found, in the order found.
    struct Failures: Error {
        var all: [Failure]
    }

    /// Where a decoding that goes on after a failure keeps what it found; see `decodeReportingEvery`.
    final class FailureLog: Sendable {
        @TaskLocal static var current: FailureLog?
        private let failures = Mutex<[Failure]>([])
        var all: [Failure] { failures.withLock { $0 } }
        func record(_ failure: Failure) { failures.withLock { $0.append(failure) } }
    }

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

    /// `data` decoded, or every failure found: types that read their parts with `part(_:default:)`
    /// and check keys with `rejectUnknownKeys` go on after a failure in one part, so that one
    /// reading of a configuration file lists all that is wrong with it.
    static func decodeReportingEvery<T: Decodable>(_ type: T.Type, from data: Data) throws(Failures) -> T {
        let log = FailureLog()
        let value: T
        do {
            value = try FailureLog.$current.withValue(log) { try decode(type, from: data) }
        } catch let failure as Failure {
            throw Failures(all: log.all + [failure])
        } catch {
            throw Failures(all: log.all + [Failure(path: "", reason: "\(error)")])
        }
        guard log.all.isEmpty else { throw Failures(all: log.all) }
        return value
    }

    /// Where `data` stops being JSON, as "line L, column C" (both from 1); nil when it is JSON.
    /// Foundation's parser says only at which byte ("around character N"), so the line and
    /// column are counted from there.
    static func syntaxErrorPosition(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let said = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
            guard let range = said.range(of: #"character \d+"#, options: .regularExpression),
                let offset = Int(said[range].dropFirst("character ".count))
            else { return "" }
            return position(ofOffset: offset, in: data)
        }
    }

    /// "line L, column C" (both from 1) of the byte at `offset`.
    static func position(ofOffset offset: Int, in data: Data) -> String {
        let before = data.prefix(offset)
        let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return "line \(line), column \(column)"
    }

    static func keyPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    static func describe(_ error: DecodingError, in data: Data) -> Failure {
        switch error {
        case .keyNotFound(let key, let context):
            return Failure(path: keyPath(context.codingPath + [key]), reason: "is required")
        case .typeMismatch(let type, let context):
            return Failure(path: keyPath(context.codingPath), reason: "must be \(describe(type))")
        case .valueNotFound(let type, let context):
            return Failure(path: keyPath(context.codingPath), reason: "must be \(describe(type)), not null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let position = syntaxErrorPosition(in: data)
                return Failure(
                    path: "",
                    reason: position.map { $0.isEmpty ? "not valid JSON" : "not valid JSON (\($0))" }
                        ?? "a value does not fit its field")
            }
            return Failure(path: keyPath(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return Failure(path: "", reason: "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int64.Type, is UInt32.Type, is UInt8.Type: return "a whole number"
        case is Double.Type: return "a number"
        case is [Any].Type: return "an array"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }
}

extension KeyedDecodingContainer {
    /// A whole number, or nil when absent: a fraction is an error that names the key (JSON has
    /// one kind of number; Foundation would refuse 1.5 without saying where).
    func wholeNumber(_ key: Key) throws -> Int? {
        let path = StrictJSON.keyPath(codingPath + [key])
        let read: Double?
        do {
            read = try decodeIfPresent(Double.self, forKey: key)
        } catch DecodingError.typeMismatch {
            throw StrictJSON.Failure(path: path, reason: "must be a whole number")
        }
        guard let value = read else { return nil }
        guard value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else {
            throw StrictJSON.Failure(path: path, reason: "must be a whole number, not \(value)")
        }
        return Int(value)
    }
}

/// Any key, to list the keys an object actually has.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(_ stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws for the first key of this object that `Keys` does not list; records every one
    /// instead while a failure log collects.
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_: Keys.Type) throws {
        let known = Set(Keys.allCases.map(\.stringValue))
        let container = try container(keyedBy: AnyCodingKey.self)
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue })
        where !known.contains(key.stringValue) {
            let failure = StrictJSON.Failure(path: StrictJSON.keyPath(codingPath + [key]), reason: "unknown key")
            guard let log = StrictJSON.FailureLog.current else { throw failure }
            log.record(failure)
        }
    }
}

extension KeyedDecodingContainer {
    /// One part of a larger document (a section of the configuration), or `value` when absent.
    /// While a failure log collects, a part that fails is recorded and read as `value`, so that
    /// the other parts are still checked.
    func part<T: Decodable>(_ key: Key, default value: T) throws -> T {
        do {
            return try decodeIfPresent(T.self, forKey: key) ?? value
        } catch {
            guard let log = StrictJSON.FailureLog.current else { throw error }
            switch error {
            case let failure as StrictJSON.Failure: log.record(failure)
            case let error as DecodingError: log.record(StrictJSON.describe(error, in: Data()))
            default: throw error
            }
            return value
        }
    }
}
