/// The daemon's version, reported by health and `--version`.
public enum DaemonVersion {
    public static let current = "0.1.0"
}
