import ArgumentParser
import FoundationEssentials
import Glibc
import SharedTypes
import SignalCrypto

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make and inspect recipient keys (X25519, RFC 9458 key configurations) and SSV signing keys.",
        subcommands: [Generate.self, Import.self, Show.self, Bundle.self, SSVGenerate.self, SSVVerifier.self]
    )

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a recipient key pair: NAME.key.pem (private, 0600) and NAME.keyconfig (public).",
            discussion: """
                The private key is an unencrypted PKCS#8 PEM that `openssl pkey` reads; give it only to \
                the bidder that opens the envelopes. The key configuration (RFC 9458 §3) is public: the \
                daemon seals with it. Existing files are never replaced unless --force is given.
                """
        )

        @OptionGroup var pair: KeyPairOptions

        func run() throws { try pair.write(try X25519PrivateKey()) }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the key configuration of an X25519 private key made elsewhere.",
            discussion: """
                For a key made by another tool, e.g. `openssl genpkey -algorithm X25519 -out bidder.pem`: \
                writes NAME.key.pem (a copy, 0600) and NAME.keyconfig (public) into --out, as \
                `keys generate` does.

                Example:
                  secure-signals keys import --key bidder.pem --key-id 7 --out /etc/secure-signals/keys --name bidder
                """)

        @Option(help: "The PEM private key (PKCS#8 or OpenSSL's form); readable by its owner only.")
        var key: String

        @OptionGroup var pair: KeyPairOptions

        func run() throws { try pair.write(try KeyFiles.readPrivateKey(at: key)) }
    }

    struct Bundle: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write key configurations as one application/ohttp-keys body, for a bidder to publish.",
            discussion: """
                The body (RFC 9458 §3.2: each configuration with its 2-byte length) is what a \
                recipient's `key_url` serves, in the order given: the daemon seals with the first \
                whose suite it supports, so list the current key first. A key id that names two \
                different keys is refused. Writes to --out, or to standard output when it is not a \
                terminal.

                Example:
                  secure-signals keys bundle new.keyconfig old.keyconfig > keys.ohttp
                """)

        @Argument(help: "Key configuration files (.keyconfig, or application/ohttp-keys lists), in order.")
        var files: [String]

        @Option(help: "Write the body to this file (replaced) instead of standard output.")
        var out: String?

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("give at least one key configuration file") }
        }

        func run() throws {
            var configs: [KeyConfig] = []
            for file in files { configs += try KeyFiles.readKeyConfigs(at: file) }
            do {
                try KeyConfig.checkKeyIDs(configs)
            } catch {
                throw CommandFailure("\(error)")
            }
            let body = Data(KeyConfig.encodeCollection(configs))
            if let out {
                try body.write(to: URL(fileURLWithPath: out), options: .atomic)
                return
            }
            guard isatty(STDOUT_FILENO) == 0 else {
                throw CommandFailure("standard output is a terminal: redirect it to a file, or give --out")
            }
            try body.withUnsafeBytes { try StandardStreams.write($0) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a key configuration, or a private key's public half and key id.",
            discussion: """
                For a private key, the key id comes from the key configuration beside it \
                (NAME.keyconfig next to NAME.key.pem), when there is one.
                """
        )

        @Argument(
            help:
                "A .keyconfig file (one configuration or an application/ohttp-keys list), a private key or a public key (PEM)."
        )
        var file: String

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() throws {
            switch try KeyFiles.kind(at: file) {
            case .privateKey:
                try showPrivateKey()
            case .publicKey(let key):
                if json {
                    try printJSON(["type": "public_key", "public_key": .string(key.rawRepresentation.hexString)])
                } else {
                    print(
                        "public key  \(key.rawRepresentation.hexString) (PEM; no key id: a key configuration has one)")
                }
            case .keyConfigs(let configs):
                try show(configs: configs)
            case .notAKeyFile(let why):
                throw CommandFailure("\(file): not a key file: \(why)")
            }
        }

        private func showPrivateKey() throws {
            let key = try KeyFiles.readPrivateKey(at: file)
            let configPath = KeyFiles.keyConfigPath(besidePrivateKey: file)
            let config = try? KeyFiles.readKeyConfigs(at: configPath).first { $0.publicKey == key.publicKey }
            if json {
                var object: [String: JSONValue] = [
                    "type": "private_key", "public_key": .string(key.publicKey.rawRepresentation.hexString),
                ]
                if let config { object["key_id"] = .int(config.keyID) }
                try printJSON(.object(object))
            } else {
                print("private key \(file)")
                print("public key  \(key.publicKey.rawRepresentation.hexString)")
                print(
                    "key id      "
                        + (config.map { "\($0.keyID) (from \(configPath))" } ?? "unknown (no matching \(configPath))"))
            }
        }

        private func show(configs: [KeyConfig]) throws {
            if json {
                try printJSON(["type": "key_configs", "key_configs": .array(configs.map(describe))])
                return
            }
            for (index, config) in configs.enumerated() {
                if index > 0 { print("") }
                print("key id      \(config.keyID)")
                print("kem         \(config.kem)")
                print("public key  \(config.publicKey.rawRepresentation.hexString)")
                for pair in config.algorithms {
                    let kdf =
                        HPKE.KDF(rawValue: pair.kdfID).map(\.description) ?? "unsupported kdf 0x\(hex(pair.kdfID))"
                    let aead =
                        HPKE.AEAD(rawValue: pair.aeadID).map(\.description) ?? "unsupported aead 0x\(hex(pair.aeadID))"
                    print("suite       \(kdf) + \(aead)")
                }
            }
        }

        private func describe(_ config: KeyConfig) -> JSONValue {
            [
                "key_id": .int(config.keyID),
                "kem_id": .int(config.kem.rawValue),
                "public_key": .string(config.publicKey.rawRepresentation.hexString),
                "symmetric_algorithms": .array(
                    config.algorithms.map { pair -> JSONValue in
                        var entry: [String: JSONValue] = ["kdf_id": .int(pair.kdfID), "aead_id": .int(pair.aeadID)]
                        if let aead = HPKE.AEAD(rawValue: pair.aeadID) { entry["aead"] = .string(aead.name) }
                        return .object(entry)
                    }),
            ]
        }
    }
}

/// What `keys generate` and `keys import` write, and where.
struct KeyPairOptions: ParsableArguments {
    @Option(help: "Key id, 0-255, carried in every envelope so the recipient finds the key.")
    var keyId: Int

    @Option(
        name: .customLong("aead"),
        help: ArgumentHelp(
            "AEAD to offer, most preferred first; repeat for several. "
                + "One of: \(HPKE.AEAD.allCases.map(\.name).joined(separator: ", ")).",
            valueName: "aead"))
    var aeads: [String] = HPKE.AEAD.allCases.map(\.name)

    @Option(help: "Directory to write the two files to (made, mode 0700, if missing).")
    var out: String

    @Option(help: "File name stem (default: key-<key id>).")
    var name: String?

    @Flag(help: "Replace existing files.")
    var force = false

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func validate() throws {
        guard (0...255).contains(keyId) else {
            throw ValidationError("--key-id must be between 0 and 255, not \(keyId)")
        }
        for aead in aeads where HPKE.AEAD(name: aead) == nil {
            throw ValidationError(
                "unknown --aead '\(aead)'; use one of \(HPKE.AEAD.allCases.map(\.name).joined(separator: ", "))")
        }
    }

    /// Writes `key` and its configuration.
    func write(_ key: X25519PrivateKey) throws {
        let config = KeyConfig(
            keyID: UInt8(keyId), publicKey: key.publicKey, aeads: aeads.compactMap(HPKE.AEAD.init(name:)))
        try writeKeyPair(key, config, into: out, stem: name ?? "key-\(keyId)", force: force, json: json)
    }
}

/// Writes NAME.key.pem (0600) and NAME.keyconfig into `directory`, made (0700) if missing; an
/// existing file is replaced only with `force`.
private func writeKeyPair(
    _ key: X25519PrivateKey, _ config: KeyConfig, into directory: String, stem: String, force: Bool, json: Bool
) throws {
    let folder = try makeKeyDirectory(directory)
    let keyPath = folder.appendingPathComponent("\(stem).key.pem").path
    let configPath = folder.appendingPathComponent("\(stem).keyconfig").path
    if !force {
        for path in [keyPath, configPath] where FileManager.default.fileExists(atPath: path) {
            throw CommandFailure("\(path): already exists (use --force to replace it)")
        }
    }
    try KeyFiles.writePrivateKey(key, to: keyPath, overwrite: force)
    try KeyFiles.writeKeyConfig(config, to: configPath, overwrite: force)
    if json {
        try printJSON([
            "key_id": .int(config.keyID), "public_key": .string(config.publicKey.rawRepresentation.hexString),
            "private_key": .string(keyPath), "key_config": .string(configPath),
        ])
        return
    }
    print("key id      \(config.keyID)")
    print("public key  \(config.publicKey.rawRepresentation.hexString)")
    print("private key \(keyPath) (mode 0600; keep it secret)")
    print("key config  \(configPath) (public)")
}

/// `directory`, made (0700) when missing; an error when it is something else.
func makeKeyDirectory(_ directory: String) throws -> URL {
    var isDirectory = false
    if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
        // mkdir(2) itself, one level at a time, so that a failure says what the system said.
        var path = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw CommandFailure("\(directory): cannot make the directory: \(String(cString: strerror(errno)))")
            }
        }
    } else if !isDirectory {
        throw CommandFailure("\(directory): not a directory (--out names the directory the key files go to)")
    }
    return URL(fileURLWithPath: directory)
}

func hex(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
