import Testing

@testable import SignalCrypto

/// RFC 9458 §3 key configurations, checked against the worked example of its Appendix A.
struct KeyConfigTests {
    static let appendixKeyConfig =
        "01002031e1f05a740102115220e9af918f738674aec95f54db6e04eb705aae8e79815500080001000100010003"

    @Test func decodesAndReencodesTheRFC9458Example() throws {
        let bytes = [UInt8](hex: Self.appendixKeyConfig)
        let config = try KeyConfig(decoding: bytes)
        #expect(config.keyID == 1)
        #expect(config.kem == .x25519HKDFSHA256)
        #expect(
            config.publicKey.rawRepresentation.hex == "31e1f05a740102115220e9af918f738674aec95f54db6e04eb705aae8e798155"
        )
        #expect(config.algorithms == [.init(kdfID: 1, aeadID: 1), .init(kdfID: 1, aeadID: 3)])
        #expect(config.encoded() == bytes)
        #expect(try config.suite() == HPKE.Suite(aead: .aes128GCM))
        #expect(try config.suite(preferring: .chaCha20Poly1305) == HPKE.Suite(aead: .chaCha20Poly1305))
        #expect(throws: CryptoError.self) { try config.suite(preferring: .aes256GCM) }
    }

    /// The Appendix A encapsulated request, rebuilt with its ephemeral key: proves the
    /// header layout and the `info` binding that envelopes copy from RFC 9458.
    @Test func reproducesTheRFC9458EncapsulatedRequest() throws {
        let config = try KeyConfig(decoding: [UInt8](hex: Self.appendixKeyConfig))
        let recipient = try X25519PrivateKey(
            rawRepresentation: SecretBytes(
                [UInt8](hex: "3c168975674b2fa8e465970b79c8dcf09f1c741626480bd4c6162fc5b6a98e1a")))
        #expect(recipient.publicKey == config.publicKey)
        let ephemeral = try X25519PrivateKey(
            rawRepresentation: SecretBytes(
                [UInt8](hex: "bc51d5e930bda26589890ac7032f70ad12e4ecb37abb1b65b1256c9c48999c73")))
        let header = Envelope.Header(keyID: 1, suite: HPKE.Suite(aead: .aes128GCM))
        let info = Array("message/bhttp request".utf8) + [0] + header.bytes
        #expect(info.hex == "6d6573736167652f626874747020726571756573740001002000010001")
        var (enc, context) = try HPKE.setupBaseSender(
            suite: header.suite, recipient: config.publicKey, info: info, ephemeral: ephemeral)
        let ct = try context.seal(plaintext: [UInt8](hex: "00034745540568747470730b6578616d706c652e636f6d012f"))
        #expect(
            (header.bytes + enc + ct).hex
                == "010020000100014b28f881333e7c164ffc499ad9796f877f4e1051ee6d31bad19dec96c208b4726374e469135906992e1268c594d2a10c695d858c40a026e7965e7d86b83dd440b2c0185204b4d63525"
        )
        #expect(
            try context.export(context: Array("message/bhttp response".utf8), length: 16).bytes.hex
                == "62d87a6ba569ee81014c2641f52bea36")
    }

    @Test func anUnsupportedKEMIsRefusedWhenDecoding() throws {
        var bytes = [UInt8](hex: Self.appendixKeyConfig)
        bytes[2] = 0x10  // kem 0x0010, DHKEM(P-256)
        #expect(throws: CryptoError.unsupportedAlgorithm(kind: "kem", id: 0x0010)) {
            try KeyConfig(decoding: bytes)
        }
    }

    @Test func aConfigurationOfferingOnlyUnsupportedPairsIsRefusedBySealers() throws {
        let key = try X25519PrivateKey()
        var config = KeyConfig(keyID: 4, publicKey: key.publicKey, aeads: [])
        config.algorithms = [.init(kdfID: 0x0002, aeadID: 0x0001), .init(kdfID: 0x0001, aeadID: 0x0009)]
        let decoded = try KeyConfig(decoding: config.encoded())
        #expect(decoded == config)
        #expect(decoded.supportedSuites.isEmpty)
        let error = #expect(throws: CryptoError.self) { try EnvelopeSealer(keyConfig: decoded) }
        #expect(error?.description.contains("offers no supported kdf/aead pair") == true)
        #expect(error?.description.contains("kdf 0x0002/aead 0x0001") == true)

        // With one supported pair after the unsupported ones, the sealer picks that one.
        config.algorithms.append(.init(kdfID: 1, aeadID: 2))
        #expect(try EnvelopeSealer(keyConfig: config).header.suite.aead == .aes256GCM)
    }

    @Test(arguments: [
        "", "01", "010020", String(appendixKeyConfig.dropLast(2)), appendixKeyConfig + "00",
        // algorithms length 0, and 6 (not a multiple of 4)
        "01002031e1f05a740102115220e9af918f738674aec95f54db6e04eb705aae8e7981550000",
        "01002031e1f05a740102115220e9af918f738674aec95f54db6e04eb705aae8e7981550006000100010001",
    ])
    func malformedEncodingsAreRefused(hex: String) {
        #expect(throws: CryptoError.self) { try KeyConfig(decoding: [UInt8](hex: hex)) }
    }

    @Test func collectionsRoundTripAndSingleConfigsAreReadToo() throws {
        let first = KeyConfig(keyID: 1, publicKey: try X25519PrivateKey().publicKey, aeads: [.aes128GCM])
        let second = KeyConfig(
            keyID: 2, publicKey: try X25519PrivateKey().publicKey, aeads: [.chaCha20Poly1305, .aes256GCM])
        let list = KeyConfig.encodeCollection([first, second])
        #expect(try KeyConfig.decodeCollection(list) == [first, second])
        #expect(try KeyConfig.decodeAny(list) == [first, second])
        #expect(try KeyConfig.decodeAny(second.encoded()) == [second])
        #expect(throws: CryptoError.self) { try KeyConfig.decodeAny(list.dropLast()) }
    }

    @Test func aPublishedSetLeavesOutConfigurationsOfAnotherKEMButNotTheirKeyIDs() throws {
        let x25519 = KeyConfig(keyID: 5, publicKey: try X25519PrivateKey().publicKey, aeads: [.aes128GCM])
        /// A P-256 (0x0010) configuration: its public key is 65 bytes.
        func p256(_ id: UInt8, _ fill: UInt8) -> [UInt8] {
            let entry: [UInt8] = [id, 0x00, 0x10] + [UInt8](repeating: fill, count: 65) + [0, 4, 0, 1, 0, 1]
            return [0, UInt8(entry.count)] + entry
        }
        let set = try KeyConfig.decodePublishedSet(p256(9, 1) + KeyConfig.encodeCollection([x25519]) + p256(9, 1))
        #expect(set.configs == [x25519] && set.skippedKeyIDs == [9])
        #expect(try KeyConfig.decodePublishedSet(p256(7, 1)).configs.isEmpty)
        #expect(throws: CryptoError.invalidKeyConfig("key id 9 names two different keys")) {
            try KeyConfig.decodePublishedSet(p256(9, 1) + p256(9, 2))
        }
        #expect(throws: CryptoError.invalidKeyConfig("key id 5 names two different keys")) {
            try KeyConfig.decodePublishedSet(p256(5, 1) + KeyConfig.encodeCollection([x25519]))
        }
        #expect(throws: CryptoError.self) { try KeyConfig.decodePublishedSet(p256(9, 1).dropLast()) }
        #expect(throws: CryptoError.self) { try KeyConfig.decodePublishedSet([]) }
    }
}
