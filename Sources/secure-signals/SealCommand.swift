import ArgumentParser
import SignalCrypto

struct SealCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seal",
        abstract: "Seal standard input into one envelope line for a recipient's key configuration.",
        discussion: """
            The envelope is what the daemon hands out: base64url of key id, suite, enc and the \
            HPKE ciphertext of the framed payload. Only the holder of the matching private key \
            can open it (`secure-signals open`).
            """
    )

    @Option(help: "The recipient's key configuration (.keyconfig); its first configuration is used.")
    var keyConfig: String

    @Option(help: "Use this AEAD instead of the configuration's first: aes-128-gcm, aes-256-gcm, chacha20-poly1305.")
    var aead: String?

    func run() throws {
        var chosen: HPKE.AEAD?
        if let aead {
            guard let known = HPKE.AEAD(name: aead) else {
                throw CommandFailure(
                    "unknown --aead '\(aead)'; use one of \(HPKE.AEAD.allCases.map(\.name).joined(separator: ", "))")
            }
            chosen = known
        }
        guard let config = try KeyFiles.readKeyConfigs(at: keyConfig).first else {
            throw CommandFailure("\(keyConfig): no key configuration")
        }
        let sealer = try EnvelopeSealer(keyConfig: config, aead: chosen)
        print(try sealer.seal(try StandardStreams.readAll()))
    }
}
