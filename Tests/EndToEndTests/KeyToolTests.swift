import Foundation
import SignalCrypto
import TestSupport
import Testing

/// The `secure-signals` key tool, run as a binary on real files.
struct KeyToolTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    @discardableResult
    func generate(keyID: Int, name: String, extra: [String] = []) async throws -> Binary.Result {
        try await Binary.run(
            "secure-signals",
            ["keys", "generate", "--key-id", "\(keyID)", "--out", directory.url.path, "--name", name] + extra)
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func generateWritesAPrivateKeyForItsOwnerAndAPublicConfiguration() async throws {
        let result = try await generate(keyID: 7, name: "bidder")
        #expect(result.status == 0, "\(result.stderr)")
        let keyPath = directory.path("bidder.key.pem")
        let configPath = directory.path("bidder.keyconfig")
        #expect(try mode(keyPath) == 0o600)
        #expect(try mode(configPath) == 0o644)
        let config = try #require(try KeyFiles.readKeyConfigs(at: configPath).first)
        #expect(config.keyID == 7)
        #expect(config.supportedSuites.map(\.aead) == [.aes128GCM, .aes256GCM, .chaCha20Poly1305])
        let publicHex = config.publicKey.rawRepresentation.hexString
        #expect(result.stdoutText.contains("key id      7"))
        #expect(result.stdoutText.contains("public key  \(publicHex)"))
        #expect(try KeyFiles.readPrivateKey(at: keyPath).publicKey == config.publicKey)
    }

    @Test func generateRefusesToReplaceFilesUnlessForced() async throws {
        try await generate(keyID: 1, name: "k")
        let before = try KeyFiles.readKeyConfigs(at: directory.path("k.keyconfig"))
        let refused = try await generate(keyID: 1, name: "k")
        #expect(refused.status != 0)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("already exists (use --force to replace it)"))
        #expect(try KeyFiles.readKeyConfigs(at: directory.path("k.keyconfig")) == before)
        let forced = try await generate(keyID: 1, name: "k", extra: ["--force", "--aead", "chacha20-poly1305"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let after = try KeyFiles.readKeyConfigs(at: directory.path("k.keyconfig"))
        #expect(after != before)
        #expect(after.first?.supportedSuites.map(\.aead) == [.chaCha20Poly1305])
        #expect(try mode(directory.path("k.key.pem")) == 0o600)
    }

    @Test func generateValidatesItsArguments() async throws {
        for arguments in [["--key-id", "256"], ["--key-id", "1", "--aead", "rot13"]] {
            let result = try await Binary.run(
                "secure-signals", ["keys", "generate", "--out", directory.url.path] + arguments)
            #expect(result.status != 0)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("Error: "))
        }
    }

    @Test(.enabled(if: Binary.onPath("openssl") != nil, "the openssl binary is not installed"))
    func opensslReadsThePrivateKey() async throws {
        try await generate(keyID: 3, name: "o")
        let openssl = try #require(Binary.onPath("openssl"))
        let result = try await Binary.runProgram(
            openssl, ["pkey", "-in", directory.path("o.key.pem"), "-pubout", "-outform", "DER"])
        #expect(result.status == 0, "\(result.stderr)")
        let config = try #require(try KeyFiles.readKeyConfigs(at: directory.path("o.keyconfig")).first)
        // SubjectPublicKeyInfo for X25519 ends with the 32 raw public key bytes.
        #expect(Array(result.stdout.suffix(32)) == config.publicKey.rawRepresentation)
        let text = try await Binary.runProgram(
            openssl, ["pkey", "-in", directory.path("o.key.pem"), "-noout", "-text"])
        #expect(text.stdoutText.contains("X25519 Private-Key"))
    }

    @Test(arguments: HPKE.AEAD.allCases)
    func sealThenOpenRoundTripsBinaryPayloads(aead: HPKE.AEAD) async throws {
        try await generate(keyID: 9, name: "r")
        let payload: [UInt8] = [0, 1, 2, 10, 13, 255, 0] + Array("signal\n".utf8)
        let sealed = try await Binary.run(
            "secure-signals", ["seal", "--key-config", directory.path("r.keyconfig"), "--aead", aead.name],
            stdin: payload)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let lines = sealed.stdoutText.split(separator: "\n")
        #expect(lines.count == 1)
        let opened = try await Binary.run(
            "secure-signals", ["open", "--key", directory.path("r.key.pem")], stdin: sealed.stdout)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout == payload)

        let json = try await Binary.run(
            "secure-signals", ["open", "--key", directory.path("r.key.pem"), "--json"], stdin: sealed.stdout)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        #expect(object["key_id"] as? Int == 9)
        #expect(object["kem_id"] as? Int == 0x20)
        #expect(object["kdf_id"] as? Int == 1)
        #expect(object["aead_id"] as? Int == Int(aead.rawValue))
        #expect(object["payload"] as? String == Data(payload).base64EncodedString())
    }

    /// Every bad input: non-zero status, nothing on stdout, one line on stderr naming the problem.
    @Test func badInputsFailWithOneClearLine() async throws {
        try await generate(keyID: 7, name: "good")
        try await generate(keyID: 7, name: "stranger")  // same key id, other key
        try await generate(keyID: 8, name: "other-id")
        let envelope = try await Binary.run(
            "secure-signals", ["seal", "--key-config", directory.path("good.keyconfig")], stdin: Array("secret".utf8)
        ).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        var bytes = try Base64URL.decode(envelope)
        bytes[6] = 0x09
        let unsupported = Base64URL.encode(bytes)
        var tamperedBytes = try Base64URL.decode(envelope)
        tamperedBytes[60] ^= 0x01
        let tampered = Base64URL.encode(tamperedBytes)

        let loose = directory.path("loose.key.pem")
        try FileManager.default.copyItem(atPath: directory.path("good.key.pem"), toPath: loose)
        try FileManager.default.copyItem(
            atPath: directory.path("good.keyconfig"), toPath: directory.path("loose.keyconfig"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: loose)

        let cases: [(what: String, key: String, input: String, says: String)] = [
            ("wrong key", "stranger", envelope, "wrong key, or the envelope was altered"),
            ("unknown key id", "other-id", envelope, "sealed for key id 7"),
            ("tampered", "good", tampered, "wrong key, or the envelope was altered"),
            ("truncated", "good", String(envelope.prefix(60)), "truncated"),
            ("bad base64", "good", "abc$def", "not base64url"),
            ("unsupported algorithm", "good", unsupported, "unsupported aead id 0x0009"),
            ("key readable by others", "loose", envelope, "readable by group or others"),
            ("empty input", "good", "", "no envelope on standard input"),
            ("missing key", "absent", envelope, "No such file or directory"),
        ]
        for (what, key, input, says) in cases {
            let result = try await Binary.run(
                "secure-signals",
                [
                    "open", "--key", directory.path("\(key).key.pem"),
                    "--key-config", directory.path(key == "absent" ? "good.keyconfig" : "\(key).keyconfig"),
                ],
                stdin: Array((input + "\n").utf8))
            #expect(result.status != 0, "\(what)")
            #expect(result.stdout.isEmpty, "\(what): stdout must stay empty")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(what): \(result.stderr)")
            #expect(result.stderr.contains(says), "\(what): \(result.stderr)")
        }
    }

    @Test func sealRefusesAConfigurationWithoutASupportedSuite() async throws {
        let key = try X25519PrivateKey()
        var config = KeyConfig(keyID: 5, publicKey: key.publicKey, aeads: [])
        config.algorithms = [.init(kdfID: 2, aeadID: 1)]
        try Data(config.encoded()).write(to: directory.url.appendingPathComponent("odd.keyconfig"))
        let result = try await Binary.run(
            "secure-signals", ["seal", "--key-config", directory.path("odd.keyconfig")], stdin: [1])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("offers no supported kdf/aead pair"))
        var p256 = config.encoded()
        p256[2] = 0x10
        try Data(p256).write(to: directory.url.appendingPathComponent("p256.keyconfig"))
        let refused = try await Binary.run(
            "secure-signals", ["seal", "--key-config", directory.path("p256.keyconfig")], stdin: [1])
        #expect(refused.stderr.contains("unsupported kem id 0x0010"))
    }

    @Test func showDescribesConfigurationsAndPrivateKeys() async throws {
        try await generate(keyID: 12, name: "s")
        let config = try await Binary.run("secure-signals", ["keys", "show", directory.path("s.keyconfig")])
        #expect(config.status == 0)
        #expect(config.stdoutText.contains("key id      12"))
        #expect(config.stdoutText.contains("HKDF-SHA256 (0x0001) + aes-128-gcm (0x0001)"))
        let json = try await Binary.run("secure-signals", ["keys", "show", "--json", directory.path("s.keyconfig")])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let configs = try #require(object["key_configs"] as? [[String: Any]])
        #expect(configs.first?["key_id"] as? Int == 12)
        let key = try await Binary.run("secure-signals", ["keys", "show", "--json", directory.path("s.key.pem")])
        let keyObject = try #require(try JSONSerialization.jsonObject(with: Data(key.stdout)) as? [String: Any])
        #expect(keyObject["key_id"] as? Int == 12)
        #expect(keyObject["public_key"] as? String == configs.first?["public_key"] as? String)
        #expect(!key.stdoutText.contains("PRIVATE"))
    }

    @Test func bundleWritesAnOHTTPKeysBodyInOrderAndRefusesAnIDNamingTwoKeys() async throws {
        try await generate(keyID: 2, name: "new")
        try await generate(keyID: 1, name: "old")
        let files = [directory.path("new.keyconfig"), directory.path("old.keyconfig")]
        let written = try await Binary.run(
            "secure-signals", ["keys", "bundle"] + files + ["--out", directory.path("keys.ohttp")])
        #expect(written.status == 0, "\(written.stderr)")
        let body = try Data(contentsOf: URL(fileURLWithPath: directory.path("keys.ohttp")))
        let configs = try KeyConfig.decodeCollection(Array(body))
        #expect(configs.map(\.keyID) == [2, 1], "in the order given")
        #expect(configs == files.flatMap { (try? KeyFiles.readKeyConfigs(at: $0)) ?? [] })
        // To standard output when it is not a terminal: the same bytes; `keys show` reads them.
        let piped = try await Binary.run("secure-signals", ["keys", "bundle"] + files)
        #expect(piped.status == 0 && Data(piped.stdout) == body)
        let shown = try await Binary.run("secure-signals", ["keys", "show", directory.path("keys.ohttp")])
        #expect(shown.stdoutText.contains("key id      2") && shown.stdoutText.contains("key id      1"))
        // Another key under id 1: a bidder could not tell which private key opens it.
        try await generate(keyID: 1, name: "clash")
        let clash = try await Binary.run(
            "secure-signals", ["keys", "bundle", files[1], directory.path("clash.keyconfig")])
        #expect(clash.status != 0 && clash.stderr.contains("key id 1 names two different keys"), "\(clash.stderr)")
    }

    @Test func generateMakesAMissingDirectoryForItsOwnerAndSpeaksJSON() async throws {
        let out = directory.path("new/keys")
        let result = try await Binary.run(
            "secure-signals", ["keys", "generate", "--key-id", "4", "--out", out, "--name", "b", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try mode(out) == 0o700)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(object["key_id"] as? Int == 4)
        #expect(object["key_config"] as? String == out + "/b.keyconfig")
        let config = try #require(try KeyFiles.readKeyConfigs(at: out + "/b.keyconfig").first)
        #expect(object["public_key"] as? String == config.publicKey.rawRepresentation.hexString)
        // A file where the directory should be is named as the directory it is not.
        try Data("x".utf8).write(to: directory.url.appendingPathComponent("plain"))
        let refused = try await Binary.run(
            "secure-signals", ["keys", "generate", "--key-id", "4", "--out", directory.path("plain")])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("\(directory.path("plain")): not a directory"))
        // A directory that cannot be made: what the system said, in one line.
        let beneath = try await Binary.run(
            "secure-signals", ["keys", "generate", "--key-id", "4", "--out", directory.path("plain/keys")])
        #expect(beneath.status != 0)
        #expect(
            beneath.stderr == "Error: \(directory.path("plain/keys")): cannot make the directory: Not a directory\n",
            "\(beneath.stderr)")
    }

    @Test(.enabled(if: Binary.onPath("openssl") != nil, "the openssl binary is not installed"))
    func importMakesTheConfigurationOfAKeyOpenSSLMade() async throws {
        let openssl = try #require(Binary.onPath("openssl"))
        let pem = directory.path("made-by-openssl.pem")
        let made = try await Binary.runProgram(openssl, ["genpkey", "-algorithm", "X25519", "-out", pem])
        #expect(made.status == 0, "\(made.stderr)")
        chmod(pem, 0o600)
        let imported = try await Binary.run(
            "secure-signals",
            ["keys", "import", "--key", pem, "--key-id", "9", "--out", directory.path("imported"), "--name", "bidder"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let config = try #require(try KeyFiles.readKeyConfigs(at: directory.path("imported/bidder.keyconfig")).first)
        #expect(config.keyID == 9)
        #expect(try KeyFiles.readPrivateKey(at: pem).publicKey == config.publicKey)
        // What the daemon seals with the configuration, the original key opens.
        let sealed = try await Binary.run(
            "secure-signals", ["seal", "--key-config", directory.path("imported/bidder.keyconfig")],
            stdin: Array("hello".utf8))
        let opened = try await Binary.run(
            "secure-signals", ["open", "--key", pem, "--key-config", directory.path("imported/bidder.keyconfig")],
            stdin: sealed.stdout)
        #expect(opened.stdoutText == "hello", "\(opened.stderr)")
    }

    @Test(.enabled(if: Binary.onPath("openssl") != nil, "the openssl binary is not installed"))
    func showTellsPublicAndPrivateKeysAndConfigurationsApart() async throws {
        try await generate(keyID: 5, name: "p")
        let openssl = try #require(Binary.onPath("openssl"))
        let publicPEM = directory.path("p.pub.pem")
        _ = try await Binary.runProgram(
            openssl, ["pkey", "-in", directory.path("p.key.pem"), "-pubout", "-out", publicPEM])
        chmod(publicPEM, 0o644)
        let shown = try await Binary.run("secure-signals", ["keys", "show", "--json", publicPEM])
        #expect(shown.status == 0, "\(shown.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout)) as? [String: Any])
        let config = try #require(try KeyFiles.readKeyConfigs(at: directory.path("p.keyconfig")).first)
        #expect(object["type"] as? String == "public_key")
        #expect(object["public_key"] as? String == config.publicKey.rawRepresentation.hexString)
        try Data("just some text\n".utf8).write(to: directory.url.appendingPathComponent("notes.txt"))
        let other = try await Binary.run("secure-signals", ["keys", "show", directory.path("notes.txt")])
        #expect(other.status != 0)
        #expect(other.stderr.contains("\(directory.path("notes.txt")): not a key file"))
    }

    @Test func theDemoKeyPairOpensWhatItsConfigurationSeals() async throws {
        let demo = repositoryRoot.appendingPathComponent("keys/demo")
        // git does not keep the 0600 mode, so work on a private copy as the README says.
        let key = directory.path("demo.key.pem")
        try FileManager.default.copyItem(atPath: demo.appendingPathComponent("demo.key.pem").path, toPath: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        let config = demo.appendingPathComponent("demo.keyconfig").path
        let sealed = try await Binary.run(
            "secure-signals", ["seal", "--key-config", config], stdin: Array("demo".utf8))
        let opened = try await Binary.run(
            "secure-signals", ["open", "--key", key, "--key-config", config], stdin: sealed.stdout)
        #expect(opened.stdoutText == "demo", "\(opened.stderr)")
    }
}
