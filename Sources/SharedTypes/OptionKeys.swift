/// The keys an adapter's `options` (or a network's `setup`) may hold, with the keys of its nested
/// objects: declared by each built-in, so that a misspelt key in the configuration is an error
/// naming it instead of an option silently left at its default.
public struct OptionKeys: Sendable, Equatable, ExpressibleByArrayLiteral {
    /// The keys, sorted, nested objects' names among them.
    public let keys: [String]
    /// The keys of the options whose value is an object of its own (`device`, `app`).
    public let nested: [String: OptionKeys]

    public init(_ keys: [String], nested: [String: OptionKeys] = [:]) {
        self.keys = Set(keys).union(nested.keys).sorted()
        self.nested = nested
    }

    public init(arrayLiteral keys: String...) { self.init(keys) }

    /// One key `options` holds that is not declared, where it is and what is declared there.
    public struct Unknown: Sendable, Equatable {
        /// Its path below the options object: `bidfloorx`, `device.colour`.
        public var path: String
        /// The keys declared at that level.
        public var known: [String]
    }

    /// Every key of `options` (and of its declared nested objects) that is not declared, in
    /// order of path.
    public func unknown(in options: AdapterOptions) -> [Unknown] {
        unknown(in: options.values, prefix: "")
    }

    private func unknown(in values: [String: JSONValue], prefix: String) -> [Unknown] {
        var found: [Unknown] = []
        for key in values.keys.sorted() {
            let path = prefix + key
            if let inner = nested[key] {
                if case .object(let object)? = values[key] {
                    found += inner.unknown(in: object, prefix: path + ".")
                }
            } else if !keys.contains(key) {
                found.append(Unknown(path: path, known: keys))
            }
        }
        return found
    }
}
