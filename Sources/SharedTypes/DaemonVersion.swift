/// The project's version: the daemon's (reported by health and `--version`) and its CLI's,
/// released together.
public enum DaemonVersion {
    public static let current = "0.1.0"
}
