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
