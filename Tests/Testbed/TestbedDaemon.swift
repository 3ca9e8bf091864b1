import Adapters
import ArgumentParser
import Daemon
import SecureSignals
import TestAdapters

/// `secure-signalsd` with the test adapters registered beside the built-in ones: the
/// end-to-end tests need adapters that hang, fail or are slow, and the product must not ship them.
@main
struct TestbedDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "secure-signalsd-testbed")

    @OptionGroup var options: DaemonOptions

    func run() async throws {
        var registry = BuiltinAdapters.registry
        for type in testAdapters { registry.register(type) }
        let status = try await DaemonRunner.run(options, registry: registry, testbed: true)
        if status != 0 { throw ExitCode(status) }
    }
}
