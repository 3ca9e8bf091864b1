import Testing

@testable import SignalCrypto

struct EnvelopeTests {
    static let payloadSizes = [0] + Array(250...256) + [4091, 4092, 4096, 10000]

    let recipient: X25519PrivateKey
    let config: KeyConfig
    let opener: EnvelopeOpener

    init() throws {
        recipient = try X25519PrivateKey()
        config = KeyConfig(keyID: 42, publicKey: recipient.publicKey, aeads: HPKE.AEAD.allCases)
        opener = try EnvelopeOpener(privateKey: recipient, keyConfig: config)
    }

    @Test(arguments: HPKE.AEAD.allCases, payloadSizes)
    func roundTripsAtEveryBucketEdge(aead: HPKE.AEAD, size: Int) throws {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let sealer = try EnvelopeSealer(keyConfig: config, aead: aead)
        let bytes = try sealer.sealedBytes(payload)
        // header + enc + framed plaintext padded to its bucket + tag: the length tells only the bucket.
        #expect(bytes.count == 7 + 32 + PlaintextFrame.bucket(forPayloadCount: size) + 16)
        let opened = try opener.open(Base64URL.encode(bytes))
        #expect(opened.payload.bytes == payload)
        #expect(opened.header == Envelope.Header(keyID: 42, suite: HPKE.Suite(aead: aead)))
    }

    @Test func bucketsAreTheDocumentedSizes() {
        let expected: [(Int, Int)] = [
            (0, 256), (251, 256), (252, 512), (507, 512), (508, 1024), (2043, 2048), (2044, 4096),
            (4091, 4096), (4092, 8192), (8187, 8192), (8188, 12288), (10000, 12288),
        ]
        for (payload, bucket) in expected {
            #expect(PlaintextFrame.bucket(forPayloadCount: payload) == bucket, "payload \(payload)")
        }
    }

    @Test func everyEnvelopeUsesAFreshEphemeralKey() throws {
        let sealer = try EnvelopeSealer(keyConfig: config)
        let envelopes = try (0..<20).map { _ in try sealer.sealedBytes(Array("same".utf8)) }
        #expect(Set(envelopes.map { Array($0[7..<39]) }).count == 20)
    }

    /// Any bit flipped anywhere, header, enc, ciphertext or tag, makes the envelope fail to open.
    @Test(arguments: ["header", "enc", "ciphertext", "tag"])
    func flippingABitInAnyRegionFailsToOpen(region: String) throws {
        let bytes = try EnvelopeSealer(keyConfig: config).sealedBytes(Array("a signal".utf8))
        let range: Range<Int>
        switch region {
        case "header": range = 0..<7
        case "enc": range = 7..<39
        case "ciphertext": range = 39..<(bytes.count - 16)
        default: range = (bytes.count - 16)..<bytes.count
        }
        let step = region == "ciphertext" ? 29 : 1  // every bit of the short regions, a spread over the long one
        for bit in stride(from: range.lowerBound * 8, to: range.upperBound * 8, by: step) {
            var tampered = bytes
            tampered[bit / 8] ^= UInt8(1 << (bit % 8))
            #expect(throws: CryptoError.self, "bit \(bit) in \(region)") { try opener.open(bytes: tampered) }
        }
    }

    @Test func failuresNameTheirCause() throws {
        let bytes = try EnvelopeSealer(keyConfig: config).sealedBytes([1, 2, 3])
        var otherKeyID = bytes
        otherKeyID[0] = 9
        #expect(throws: CryptoError.unknownKeyID(9)) { try opener.open(bytes: otherKeyID) }
        var unknownAEAD = bytes
        unknownAEAD[6] = 0x09
        #expect(throws: CryptoError.unsupportedAlgorithm(kind: "aead", id: 9)) { try opener.open(bytes: unknownAEAD) }
        #expect(throws: CryptoError.self) { try opener.open(bytes: Array(bytes.prefix(50))) }
        #expect(throws: CryptoError.self) { try opener.open("not base64url!") }
        #expect(throws: CryptoError.self) { try opener.open("A") }

        let stranger = try X25519PrivateKey()
        let wrongKey = try EnvelopeOpener(
            privateKey: stranger, keyConfig: KeyConfig(keyID: 42, publicKey: stranger.publicKey, aeads: [.aes128GCM]))
        #expect(throws: CryptoError.authenticationFailed) { try wrongKey.open(bytes: bytes) }
    }

    @Test func anOpenerRefusesASuiteItsConfigurationDoesNotOffer() throws {
        let narrow = KeyConfig(keyID: 42, publicKey: recipient.publicKey, aeads: [.aes128GCM])
        let opener = try EnvelopeOpener(privateKey: recipient, keyConfig: narrow)
        let chacha = try EnvelopeSealer(keyConfig: config, aead: .chaCha20Poly1305).sealedBytes([7])
        #expect(throws: CryptoError.self) { try opener.open(bytes: chacha) }
    }

    @Test func openersRefuseAConfigurationOfAnotherKey() throws {
        let other = KeyConfig(keyID: 1, publicKey: try X25519PrivateKey().publicKey, aeads: [.aes128GCM])
        #expect(throws: CryptoError.self) { try EnvelopeOpener(privateKey: recipient, keyConfig: other) }
    }

    @Test func framesRefuseBadVersionsLengthsAndPadding() throws {
        let framed = try PlaintextFrame.frame([1, 2, 3]).bytes
        #expect(try PlaintextFrame.unframe(SecretBytes(framed)).bytes == [1, 2, 3])
        var badVersion = framed
        badVersion[0] = 2
        var badLength = framed
        badLength[4] = 0xFF
        var badPadding = framed
        badPadding[200] = 1
        for bad in [badVersion, badLength, badPadding, [1, 0, 0]] {
            #expect(throws: CryptoError.self) { try PlaintextFrame.unframe(SecretBytes(bad)) }
        }
    }

    @Test func base64URLIsStrict() throws {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(try Base64URL.decode("-_8") == [0xFB, 0xFF])
        for bad in ["-_8=", "+/8", "ab cd", "abcde"] {
            #expect(throws: CryptoError.self) { try Base64URL.decode(bad) }
        }
    }

    @Test func privateKeysRoundTripThroughPEM() throws {
        let pem = try recipient.pemRepresentation()
        let text = String(decoding: pem.bytes, as: UTF8.self)
        #expect(text.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try X25519PrivateKey(pemRepresentation: pem).publicKey == recipient.publicKey)
        #expect(throws: CryptoError.self) { try X25519PrivateKey(pemRepresentation: SecretBytes(Array("junk".utf8))) }
    }
}
