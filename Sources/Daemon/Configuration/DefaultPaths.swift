import Foundation

extension ResolvedConfiguration {
    /// `$XDG_RUNTIME_DIR/secure-signals.sock`, or `./.run/secure-signals.sock` without it.
    public static func defaultSocketPath() -> String {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/secure-signals.sock"
        }
        return FileManager.default.currentDirectoryPath + "/.run/secure-signals.sock"
    }

    static func defaultStateDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/secure-signals" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/secure-signals" }
        return FileManager.default.currentDirectoryPath + "/.run/state"
    }
}
