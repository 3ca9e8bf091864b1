import Adapters
import ArgumentParser
import Daemon
import FoundationEssentials
import SharedTypes

@main
struct SecureSignalsDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secure-signalsd",
        abstract: "Serves encrypted secure signals to every app on the device, over a Unix socket.",
        discussion: """
            With no options it runs on the embedded default: the demo key (NOT FOR PRODUCTION), \
            the built-in adapters device-context, first-party-id and file, the seeds' test ad \
            units on the test network, and a socket at \
            $XDG_RUNTIME_DIR/secure-signals.sock (./.run/secure-signals.sock without it).

            Examples:
              secure-signalsd
              secure-signalsd --config /etc/secure-signals/daemon.json
              secure-signalsd --config config/daemon.json --check-config
              secure-signalsd --config config/daemon.json --print-config > effective.json
              curl --unix-socket $XDG_RUNTIME_DIR/secure-signals.sock http://localhost/v1/health

            Signals: SIGHUP reloads configuration and keys; SIGTERM drains in-flight requests and stops.
            """,
        version: DaemonVersion.current
    )

    @OptionGroup var options: DaemonOptions

    func run() async throws {
        let status = try await DaemonRunner.run(options, registry: BuiltinAdapters.registry)
        if status != 0 { throw ExitCode(status) }
    }
}
