/// A program that runs as an adapter (`exec` in the configuration): what to start, and how
/// long it gets to stop.
public struct ProgramSpec: Sendable, Equatable {
    /// An absolute path.
    public var executable: String
    public var arguments: [String]
    /// Set on top of the daemon's own environment.
    public var environment: [String: String]
    /// Between SIGTERM and SIGKILL, at shutdown.
    public var stopGrace: Duration

    public init(
        executable: String, arguments: [String] = [], environment: [String: String] = [:],
        stopGrace: Duration = .seconds(3)
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.stopGrace = stopGrace
    }
}

/// Makes the adapter of a program: starts it and initializes it, or throws its init error.
/// The daemon supplies one; SecureSignals itself starts no processes.
public typealias ProgramLauncher = @Sendable (ProgramSpec, AdapterContext) async throws -> any SignalSource
