/// A JSON value, for adapter options whose shape each adapter defines.
public enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// An adapter's `options` object, read with typed accessors whose errors name the option.
public struct AdapterOptions: Sendable, Equatable, Codable {
    public var values: [String: JSONValue]

    public init(_ values: [String: JSONValue] = [:]) { self.values = values }

    public init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }

    public func string(_ key: String) throws -> String? {
        switch values[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw SignalError(.adapterInitFailed, "option '\(key)' must be a string")
        }
    }

    public func requiredString(_ key: String) throws -> String {
        guard let value = try string(key) else {
            throw SignalError(.adapterInitFailed, "option '\(key)' is required")
        }
        return value
    }

    public func int(_ key: String) throws -> Int? {
        switch values[key] {
        case nil, .null?: return nil
        case .number(let value)? where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: throw SignalError(.adapterInitFailed, "option '\(key)' must be a whole number")
        }
    }

    public func bool(_ key: String) throws -> Bool? {
        switch values[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw SignalError(.adapterInitFailed, "option '\(key)' must be true or false")
        }
    }

    public func number(_ key: String) throws -> Double? {
        switch values[key] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        default: throw SignalError(.adapterInitFailed, "option '\(key)' must be a number")
        }
    }

    public func strings(_ key: String) throws -> [String]? {
        switch values[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map { item in
                guard case .string(let value) = item else {
                    throw SignalError(.adapterInitFailed, "option '\(key)' must be a list of strings")
                }
                return value
            }
        default: throw SignalError(.adapterInitFailed, "option '\(key)' must be a list of strings")
        }
    }

    /// An object whose values are all strings (HTTP headers, for one).
    public func stringMap(_ key: String) throws -> [String: String]? {
        switch values[key] {
        case nil, .null?: return nil
        case .object(let object)?:
            return try object.mapValues { item in
                guard case .string(let value) = item else {
                    throw SignalError(.adapterInitFailed, "option '\(key)' must be an object of strings")
                }
                return value
            }
        default: throw SignalError(.adapterInitFailed, "option '\(key)' must be an object of strings")
        }
    }

    /// A nested object, read with the same accessors.
    public func options(_ key: String) throws -> AdapterOptions? {
        switch values[key] {
        case nil, .null?: return nil
        case .object(let object)?: return AdapterOptions(object)
        default: throw SignalError(.adapterInitFailed, "option '\(key)' must be an object")
        }
    }
}
