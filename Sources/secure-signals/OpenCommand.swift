import ArgumentParser
import FoundationEssentials
import SharedTypes
import SignalCrypto

struct OpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open one envelope line from standard input and write its payload to standard output.",
        discussion: """
            The key id comes from the key configuration: --key-config, or NAME.keyconfig beside \
            NAME.key.pem. Any failure (wrong key, unknown key id, altered or truncated envelope, \
            bad base64url, unsupported algorithm, a key file others can read) exits non-zero \
            with one line on standard error and nothing on standard output.
            """
    )

    @Option(help: "The recipient's private key (.key.pem), readable by its owner only.")
    var key: String

    @Option(help: "The key configuration of that key (default: the .keyconfig beside the key).")
    var keyConfig: String?

    @Flag(help: "Print the header fields and the payload (base64) as JSON instead of the raw payload.")
    var json = false

    func run() throws {
        let privateKey = try KeyFiles.readPrivateKey(at: key)
        let configPath = keyConfig ?? KeyFiles.keyConfigPath(besidePrivateKey: key)
        guard FileManager.default.fileExists(atPath: configPath) else {
            throw CommandFailure("\(configPath): no key configuration for \(key); pass --key-config")
        }
        let configs = try KeyFiles.readKeyConfigs(at: configPath).filter { $0.publicKey == privateKey.publicKey }
        guard !configs.isEmpty else {
            throw CommandFailure("\(configPath): no configuration in it is the public half of \(key)")
        }
        let opener = try EnvelopeOpener(keys: configs.map { (privateKey, $0) })

        let lines = String(decoding: try StandardStreams.readAll(), as: UTF8.self)
            .split(whereSeparator: \.isNewline)
            .map(\.trimmingWhitespace)
            .filter { !$0.isEmpty }
        guard let line = lines.first else { throw CommandFailure("no envelope on standard input") }
        guard lines.count == 1 else {
            throw CommandFailure("\(lines.count) lines on standard input; open takes one envelope")
        }
        let opened = try opener.open(line)
        if json {
            let header = opened.header
            try printJSON([
                "key_id": .int(header.keyID),
                "kem_id": .int(header.suite.kem.rawValue),
                "kdf_id": .int(header.suite.kdf.rawValue),
                "aead_id": .int(header.suite.aead.rawValue),
                "aead": .string(header.suite.aead.name),
                "payload": .string(opened.payload.withUnsafeBytes { Data($0).base64EncodedString() }),
            ])
        } else {
            try opened.payload.withUnsafeBytes { try StandardStreams.write($0) }
        }
    }
}
