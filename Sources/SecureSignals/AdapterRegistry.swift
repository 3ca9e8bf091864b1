/// The adapter types a daemon knows, by name. Only adapters named in the configuration are
/// ever created.
public struct AdapterRegistry: Sendable {
    private var types: [String: any SignalAdapter.Type] = [:]

    public init(_ types: [any SignalAdapter.Type] = []) {
        for type in types { register(type) }
    }

    public mutating func register(_ type: any SignalAdapter.Type) {
        types[type.name] = type
    }

    public func type(named name: String) -> (any SignalAdapter.Type)? { types[name] }

    public var names: [String] { types.keys.sorted() }
}
