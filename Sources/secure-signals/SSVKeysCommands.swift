import ArgumentParser
import FoundationEssentials
import SharedTypes
import SignalCrypto

extension KeysCommand {
    struct SSVGenerate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ssv-generate",
            abstract: "Make the ECDSA P-256 key that signs rewards' SSV callbacks: NAME.pem (private, 0600).",
            discussion: """
                Name it in the daemon's configuration as ssv.signing_key, with ssv.key_id; publish \
                the verifier key set (keys ssv-verifier) where the publisher's server fetches it.

                Example:
                  secure-signals keys ssv-generate --key-id 1 --out /etc/secure-signals/keys
                """)

        @Option(help: "The key's id in the verifier key set (sent as key_id with every callback).")
        var keyId: UInt32

        @Option(help: "Directory to write the key to (made, mode 0700, if missing).")
        var out: String

        @Option(help: "File name stem (default: ssv-<key id>).")
        var name: String?

        @Flag(help: "Replace an existing file.")
        var force = false

        func run() throws {
            let path = try makeKeyDirectory(out).appendingPathComponent("\(name ?? "ssv-\(keyId)").pem").path
            let key = try SSVSigningKey()
            try KeyFiles.writeSSVSigningKey(key, to: path, overwrite: force)
            print("ssv signing key \(path) (mode 0600; keep it secret)")
            print("key id          \(keyId)")
            print("verifier keys   secure-signals keys ssv-verifier \(path) --key-id \(keyId)")
        }
    }

    struct SSVVerifier: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ssv-verifier",
            abstract: "Print the verifier key set of an SSV signing key, as a publisher's server fetches it.",
            discussion: """
                The JSON has Google's shape, {"keys": [{"keyId": N, "pem": ..., "base64": ...}]}, \
                which Tink's RewardedAdsVerifier reads.
                """)

        @Argument(help: "The PEM SSV signing key.")
        var key: String

        @Option(help: "The key's id, as the daemon's ssv.key_id.")
        var keyId: UInt32

        func run() throws {
            let signing = try KeyFiles.readSSVSigningKey(at: key)
            let pem = try signing.publicKeyPEM().trimmingWhitespace
            let entry: JSONValue = [
                "keyId": .int(keyId), "pem": .string(pem),
                "base64": .string(Data(try signing.publicKeyDER()).base64EncodedString()),
            ]
            print(String(decoding: try jsonBody(["keys": [entry]]), as: UTF8.self))
        }
    }
}
