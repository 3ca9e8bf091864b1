import SharedTypes

/// The adapter types a daemon knows, by name, and the launcher of adapter programs. Only
/// adapters named in the configuration are ever created.
public struct AdapterRegistry: Sendable {
    private var types: [String: any SignalAdapter.Type] = [:]
    /// Starts `exec` adapters; without one, a configuration that names a program is refused.
    public var programLauncher: ProgramLauncher?

    public init(_ types: [any SignalAdapter.Type] = [], programLauncher: ProgramLauncher? = nil) {
        for type in types { register(type) }
        self.programLauncher = programLauncher
    }

    public mutating func register(_ type: any SignalAdapter.Type) {
        types[type.name] = type
    }

    public func type(named name: String) -> (any SignalAdapter.Type)? { types[name] }

    public var names: [String] { types.keys.sorted() }

    /// How to make the adapter `configuration` describes, or why it cannot be made.
    func factory(for configuration: AdapterConfiguration) throws(SignalError) -> AdapterFactory {
        if let program = configuration.program {
            guard let programLauncher else {
                throw SignalError(.unknownAdapter, "this daemon cannot run adapter programs ('\(configuration.name)')")
            }
            return AdapterFactory(kind: .exec, declaredVersion: nil, enforcesInitTimeout: true) { context in
                try await programLauncher(program, context)
            }
        }
        guard let type = types[configuration.type] else {
            throw SignalError(.unknownAdapter, "no adapter type named '\(configuration.type)'")
        }
        return AdapterFactory(kind: .builtin, declaredVersion: type.adapterVersion, enforcesInitTimeout: false) {
            context in
            try await type.make(options: configuration.options, context: context)
        }
    }
}

/// How a configured adapter is made, exactly once.
struct AdapterFactory: Sendable {
    enum Kind: String, Sendable { case builtin, exec }

    var kind: Kind
    /// The version known before the adapter exists: a compiled-in type's. A program tells its own.
    var declaredVersion: SemanticVersion?
    /// Whether the adapter fails its own init at its init timeout (a program does; the host
    /// then waits a little longer before calling it late).
    var enforcesInitTimeout: Bool
    var make: @Sendable (AdapterContext) async throws -> any SignalSource
}
