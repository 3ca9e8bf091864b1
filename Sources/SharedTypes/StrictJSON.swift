import FoundationEssentials
import Synchronization

/// Decoding that refuses unknown keys and names the offending key path
/// (`adapters[1].timeout_ms`) in every error: for the configuration file and request bodies.
public enum StrictJSON {
    public struct Failure: Error, CustomStringConvertible {
        /// The key path, such as `adapters[1].timeout_ms`; empty for the document itself.
        public var path: String
        public var reason: String
        /// For an unknown key, the keys its object takes (options name them in their errors).
        public var knownKeys: [String]?
        public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        /// A failure of `key` in the object at `codingPath`.
        public init(at codingPath: [any CodingKey], _ key: any CodingKey, _ reason: String) {
            self.init(path: StrictJSON.keyPath(codingPath + [key]), reason: reason)
        }

        /// A failure of the value at `codingPath` itself.
        public init(at codingPath: [any CodingKey], _ reason: String) {
            self.init(path: StrictJSON.keyPath(codingPath), reason: reason)
        }
    }

    /// Every failure one decoding found.
    public struct Failures: Error {
        public var all: [Failure]
        public init(all: [Failure]) { self.all = all }
    }

    /// Where a decoding that goes on after a failure keeps what it found (`--check-config`
    /// lists every error of a file in one run).
    public final class FailureLog: Sendable {
        @TaskLocal public static var current: FailureLog?
        private let failures = Mutex<[Failure]>([])
        public init() {}
        public var all: [Failure] { failures.withLock { $0 } }
        public var count: Int { failures.withLock { $0.count } }
        public func record(_ failure: Failure) { failures.withLock { $0.append(failure) } }
    }

    public static func keyPath(_ path: [any CodingKey]) -> String {
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

    /// A decoding error as a failure naming its key path (a syntax error has no path).
    public static func describe(_ error: DecodingError) -> Failure {
        switch error {
        case .keyNotFound(let key, let context):
            return Failure(path: keyPath(context.codingPath + [key]), reason: "is required")
        case .typeMismatch(let type, let context):
            return Failure(path: keyPath(context.codingPath), reason: "must be \(describe(type))")
        case .valueNotFound(let type, let context):
            return Failure(path: keyPath(context.codingPath), reason: "must be \(describe(type)), not null")
        case .dataCorrupted(let context):
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
        default: return String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }

    /// `read()`, or `fallback` when it fails while a failure log collects (the failure is
    /// recorded): one part of a document that fails does not hide the others' failures.
    static func collecting<T>(fallback: T, _ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch {
            guard let log = FailureLog.current else { throw error }
            switch error {
            case let failure as Failure: log.record(failure)
            case let error as DecodingError: log.record(describe(error))
            default: throw error
            }
            return fallback
        }
    }

    /// "between 1 and 10" or, for what has a name, "a TCF policy version from 2 to 63".
    static func range(_ low: String, _ high: String, as what: String?) -> String {
        guard let what else { return "between \(low) and \(high)" }
        return "\(what) from \(low) to \(high)"
    }
}

/// Any key, to list the keys an object actually has.
public struct AnyCodingKey: CodingKey {
    public var stringValue: String
    public var intValue: Int?
    public init(stringValue: String) { self.stringValue = stringValue }
    public init(_ stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws for the first key of this object that `Keys` does not list; records every one
    /// instead while a failure log collects.
    public func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_: Keys.Type) throws {
        let known = Set(Keys.allCases.map(\.stringValue))
        let container = try container(keyedBy: AnyCodingKey.self)
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue })
        where !known.contains(key.stringValue) {
            var failure = StrictJSON.Failure(path: StrictJSON.keyPath(codingPath + [key]), reason: "unknown key")
            failure.knownKeys = known.sorted()
            guard let log = StrictJSON.FailureLog.current else { throw failure }
            log.record(failure)
        }
    }
}

extension KeyedDecodingContainer {
    /// A whole number, or nil when absent: a fraction is an error that names the key (JSON has
    /// one kind of number; a decoder would refuse 1.5 without saying where).
    public func wholeNumber(_ key: Key) throws -> Int? {
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

extension StrictJSON {
    /// A closed set of names (`"native"` or `"rewarded"`) read from one string; the error lists
    /// them (two quoted, three as "a, b or c", more as "one of ...").
    public static func oneOf<T: RawRepresentable & CaseIterable>(_ decoder: any Decoder) throws -> T
    where T.RawValue == String {
        let name = try decoder.singleValueContainer().decode(String.self)
        if let value = T(rawValue: name) { return value }
        let names = T.allCases.map(\.rawValue)
        let listed: String
        switch names.count {
        case 2: listed = names.map { "\"\($0)\"" }.joined(separator: " or ")
        case 3: listed = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        default: listed = "one of " + names.joined(separator: ", ")
        }
        throw Failure(at: decoder.codingPath, "must be \(listed), not \"\(name)\"")
    }
}
