import ArgumentParser
import SharedTypes

@main
struct SecureSignalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secure-signals",
        abstract: "Client and key tool for the secure-signals daemon.",
        discussion: """
            Ask a running secure-signalsd for signals and ads, make recipient keys, seal and \
            open envelopes by hand, and measure the daemon.

            Examples:
              secure-signals health                      # exit 0 only when all is ready
              secure-signals version
              secure-signals adapters
              secure-signals adapters reset first-party-id
              secure-signals collect --request-id ad-42 --adapter device-context
              secure-signals ads load --ad-unit /6499/example/rewarded --format rewarded
              secure-signals keys generate --key-id 7 --out /etc/secure-signals/keys --name bidder
              echo -n hello | secure-signals seal --key-config keys/demo/demo.keyconfig
              secure-signals seal --key-config keys/demo/demo.keyconfig < payload \\
                | secure-signals open --key keys/demo/demo.key.pem
            """,
        version: DaemonVersion.current,
        subcommands: [
            CollectCommand.self, AdaptersCommand.self, HealthCommand.self, VersionCommand.self, KeysCommand.self,
            PrivacyCommand.self, SealCommand.self, OpenCommand.self, BenchCommand.self, AdsCommand.self,
            RewardsCommand.self, RecipientsCommand.self, AppsCommand.self, InspectCommand.self,
        ]
    )
}
