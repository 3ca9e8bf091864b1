import SecureSignals

/// The adapters every daemon knows, and the launcher of `exec` adapter programs; the
/// configuration chooses which of them run.
public enum BuiltinAdapters {
    public static let types: [any SignalAdapter.Type] = [
        DeviceContextAdapter.self, FirstPartyIDAdapter.self, FileSignalAdapter.self,
    ]

    public static var registry: AdapterRegistry {
        AdapterRegistry(types, programLauncher: ExecSignalAdapter.launcher)
    }
}
