/// A configuration error: the key path at fault and why. `--check-config` prints it and exits 78.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var file: String
    public var path: String
    public var reason: String
    public var description: String {
        path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)"
    }
}
