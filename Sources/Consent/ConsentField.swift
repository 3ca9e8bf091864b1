import FoundationEssentials
import SharedTypes

/// One decoded field of a GPP section, under the GPP specification's name.
public struct ConsentField: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case int(Int)
        case bool(Bool)
        case string(String)
        /// Epoch milliseconds; shown as ISO 8601 UTC.
        case date(Int64)
        /// A set of 1-based ids, sorted.
        case ids([Int])
        /// A fixed list of small integers (the US sections' per-category answers).
        case list([Int])
        case restrictions([TCString.PublisherRestriction])
    }

    public var name: String
    public var value: Value

    public init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }
}

extension [ConsentField] {
    /// The value of the field called `name`.
    public subscript(name: String) -> ConsentField.Value? {
        first { $0.name == name }?.value
    }

    /// The integer field called `name`, when it is one.
    public func int(_ name: String) -> Int? {
        if case .int(let value) = self[name] { return value }
        return nil
    }
}

extension ConsentField.Value {
    /// As the decoded view shows it: dates as ISO 8601 UTC, id sets and lists as arrays.
    public var json: JSONValue {
        switch self {
        case .int(let value): .int(value)
        case .bool(let value): .bool(value)
        case .string(let value): .string(value)
        case .date(let milliseconds):
            .string(Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601))
        case .ids(let ids), .list(let ids): .ids(ids)
        case .restrictions(let restrictions): .array(restrictions.map(\.json))
        }
    }
}
