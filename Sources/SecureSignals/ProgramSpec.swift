import SharedTypes

/// A program that runs as an adapter (`exec` in the configuration): what to start, what to tell
/// it, and how long it gets to stop.
@MemberwiseInit
public struct ProgramSpec: Sendable, Equatable {
    /// An absolute path.
    public var executable: String
    public var arguments: [String] = []
    /// Set on top of the daemon's own environment.
    public var environment: [String: String] = [:]
    /// Between SIGTERM and SIGKILL, at shutdown.
    public var stopGrace: Duration = .seconds(3)
    /// Its `options`, passed to it as written (`initialize`): the program defines them.
    public var options: [String: JSONValue] = [:]
}

/// Makes the adapter of a program: starts it and initializes it, or throws its init error.
/// The daemon supplies one; SecureSignals itself starts no processes.
public typealias ProgramLauncher = @Sendable (ProgramSpec, AdapterContext) async throws -> any SignalSource
