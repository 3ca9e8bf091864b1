import ArgumentParser
import Logging

/// The daemon's command line, shared by `secure-signalsd` and the tests' testbed.
public struct DaemonOptions: ParsableArguments {
    @Option(help: "Configuration file (JSON; see config/daemon.json). Without it: the embedded default.")
    public var config: String?

    @Option(help: "Socket path, overriding the configuration's.")
    public var socket: String?

    @Flag(help: "Check the configuration, print a summary and exit: 0 when valid, 78 with the key at fault when not.")
    public var checkConfig = false

    @Flag(
        help:
            "Print the effective configuration (every default filled in, every path absolute) as JSON that --config accepts, and exit."
    )
    public var printConfig = false

    @Option(
        help:
            "trace, debug, info, notice, warning, error or critical; overrides the configuration's log_level (default: info)."
    )
    public var logLevel: String?

    @Option(
        help: ArgumentHelp(
            "auto (journald when stderr is the journal, else text), text, or journald (a <N> syslog priority, no timestamp).",
            valueName: "format"))
    public var logFormat: LogFormat = .auto

    public init() {}

    public func validate() throws {
        if checkConfig, printConfig {
            throw ValidationError(
                "--check-config and --print-config are one or the other: check, or print what would run")
        }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }
}
