import ArgumentParser

@main
struct SecureSignalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secure-signals",
        abstract: "Client and key tool for the secure-signals daemon.",
        discussion: """
            Make recipient keys, seal and open envelopes by hand, and measure the crypto.

            Examples:
              secure-signals keys generate --key-id 7 --out /etc/secure-signals/keys --name bidder
              echo -n hello | secure-signals seal --key-config keys/demo/demo.keyconfig
              secure-signals seal --key-config keys/demo/demo.keyconfig < payload \\
                | secure-signals open --key keys/demo/demo.key.pem
            """,
        subcommands: [KeysCommand.self, SealCommand.self, OpenCommand.self, BenchCommand.self]
    )
}
