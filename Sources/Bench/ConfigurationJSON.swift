import SharedTypes

extension JSONValue {
    /// A benchmark's configuration, written as dictionary and array literals of strings,
    /// numbers and booleans, as the JSON the daemon reads (JSONSerialization's job, without
    /// Foundation); anything else is a mistake in the benchmark, refused naming its type.
    init(configuration value: Any) throws {
        switch value {
        case let value as JSONValue: self = value
        case let value as String: self = .string(value)
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Double: self = .number(value)
        case let value as [Any]: self = .array(try value.map { try JSONValue(configuration: $0) })
        case let value as [String: Any]: self = .object(try value.mapValues { try JSONValue(configuration: $0) })
        default: throw BenchFailure("a configuration value of type \(type(of: value)) is not JSON")
        }
    }
}
