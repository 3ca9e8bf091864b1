import Synchronization

/// A configuration error: the key path at fault and why. `--check-config` prints it and exits 78.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var file: String
    public var path: String
    public var reason: String
    public var description: String {
        path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)"
    }
}

/// Every error one reading of the configuration found, in the order found: its description
/// has one line each.
public struct ConfigurationErrors: Error, CustomStringConvertible {
    public var errors: [ConfigurationError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }

    /// The errors of `error`: itself when it is one, its list when it is a list, nil otherwise.
    public static func of(_ error: any Error) -> [ConfigurationError]? {
        switch error {
        case let one as ConfigurationError: [one]
        case let list as ConfigurationErrors: list.errors
        default: nil
        }
    }
}

/// The errors a resolver has found so far, so that it goes on to the next section or entry
/// after one and reports them all at the end.
final class ConfigurationProblems: Sendable {
    private let found = Mutex<[ConfigurationError]>([])

    /// `body`'s value, or nil when it threw configuration errors, which are kept.
    func collecting<T>(_ body: () throws -> T) throws -> T? {
        do {
            return try body()
        } catch {
            guard let errors = ConfigurationErrors.of(error) else { throw error }
            found.withLock { $0 += errors }
            return nil
        }
    }

    /// Throws what was found, if anything.
    func throwIfAny() throws(ConfigurationErrors) {
        let errors = found.withLock { $0 }
        guard errors.isEmpty else { throw ConfigurationErrors(errors: errors) }
    }
}
