import FoundationEssentials

extension ResolvedConfiguration {
    /// `$XDG_RUNTIME_DIR/secure-signals.sock`, or `./.run/secure-signals.sock` without it.
    public static func defaultSocketPath() -> String {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/secure-signals.sock"
        }
        return FileManager.default.currentDirectoryPath + "/.run/secure-signals.sock"
    }

    /// systemd's `$STATE_DIRECTORY` (the unit's `StateDirectory=`, made for the service),
    /// else `$XDG_STATE_HOME/secure-signals`, else `~/.local/state/secure-signals` for a user
    /// with a home (`/` is none: system users have it), else `./.run/state`.
    static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, systemd.hasPrefix("/") {
            return String(systemd)
        }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/secure-signals" }
        if let home = environment["HOME"], home.hasPrefix("/"), home != "/" {
            return home + "/.local/state/secure-signals"
        }
        return FileManager.default.currentDirectoryPath + "/.run/state"
    }
}
