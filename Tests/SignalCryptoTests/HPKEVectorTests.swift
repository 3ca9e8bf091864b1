import Foundation
import Testing

@testable import SignalCrypto

/// RFC 9180 Appendix A.1.1: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, base mode.
struct HPKEVectorTests {
    struct Vector: Decodable {
        struct Encryption: Decodable { let aad, ct, nonce, pt: String }
        struct Export: Decodable {
            let exporterContext: String
            let length: Int
            let exportedValue: String
            enum CodingKeys: String, CodingKey {
                case exporterContext
                case length = "L"
                case exportedValue
            }
        }
        let mode, kemId, kdfId, aeadId: Int
        let info, ikmR, ikmE, skRm, skEm, pkRm, pkEm, enc: String
        let encryptions: [Encryption]
        let exports: [Export]
    }

    static func vectors() throws -> [Vector] {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(
            [Vector].self, from: Fixtures.data("vectors/hpke-base-x25519-sha256-aes128gcm.json"))
    }

    let suite = HPKE.Suite(aead: .aes128GCM)

    @Test func deriveKeyPairReproducesTheVectorKeys() throws {
        for vector in try Self.vectors() {
            let ephemeral = try HPKE.deriveKeyPair(ikm: [UInt8](hex: vector.ikmE))
            #expect(try ephemeral.rawRepresentation.bytes.hex == vector.skEm)
            #expect(ephemeral.publicKey.rawRepresentation.hex == vector.pkEm)
            let recipient = try HPKE.deriveKeyPair(ikm: [UInt8](hex: vector.ikmR))
            #expect(try recipient.rawRepresentation.bytes.hex == vector.skRm)
            #expect(recipient.publicKey.rawRepresentation.hex == vector.pkRm)
        }
    }

    @Test func everyEncryptionAndExportMatchesByteForByte() throws {
        for vector in try Self.vectors() {
            #expect(vector.mode == 0 && vector.kemId == 0x20 && vector.kdfId == 1 && vector.aeadId == 1)
            let ephemeral = try HPKE.deriveKeyPair(ikm: [UInt8](hex: vector.ikmE))
            let recipient = try HPKE.deriveKeyPair(ikm: [UInt8](hex: vector.ikmR))
            let info = [UInt8](hex: vector.info)
            var (enc, sender) = try HPKE.setupBaseSender(
                suite: suite, recipient: recipient.publicKey, info: info, ephemeral: ephemeral)
            #expect(enc.hex == vector.enc)
            var receiver = try HPKE.setupBaseRecipient(suite: suite, enc: enc, recipient: recipient, info: info)
            #expect(vector.encryptions.count == 257)
            for (index, encryption) in vector.encryptions.enumerated() {
                let ct = try sender.seal(aad: [UInt8](hex: encryption.aad), plaintext: [UInt8](hex: encryption.pt))
                #expect(ct.hex == encryption.ct, "encryption \(index)")
                let pt = try receiver.open(aad: [UInt8](hex: encryption.aad), ciphertext: [UInt8](hex: encryption.ct))
                #expect(pt.bytes.hex == encryption.pt, "decryption \(index)")
            }
            for export in vector.exports {
                let context = [UInt8](hex: export.exporterContext)
                #expect(try sender.export(context: context, length: export.length).bytes.hex == export.exportedValue)
                #expect(try receiver.export(context: context, length: export.length).bytes.hex == export.exportedValue)
            }
        }
    }

    @Test func recipientRefusesAMessageOutOfOrderWithoutLosingItsPlace() throws {
        let recipient = try X25519PrivateKey()
        var (enc, sender) = try HPKE.setupBaseSender(suite: suite, recipient: recipient.publicKey, info: [])
        let first = try sender.seal(plaintext: Array("one".utf8))
        let second = try sender.seal(plaintext: Array("two".utf8))
        var receiver = try HPKE.setupBaseRecipient(suite: suite, enc: enc, recipient: recipient, info: [])
        #expect(throws: CryptoError.authenticationFailed) { try receiver.open(ciphertext: second) }
        #expect(try receiver.open(ciphertext: first).bytes == Array("one".utf8))
        #expect(try receiver.open(ciphertext: second).bytes == Array("two".utf8))
        enc[0] ^= 1
        #expect(throws: CryptoError.authenticationFailed) {
            var wrong = try HPKE.setupBaseRecipient(suite: suite, enc: enc, recipient: recipient, info: [])
            _ = try wrong.open(ciphertext: first)
        }
    }

    /// Low-order points of Curve25519 (RFC 7748 and RFC 9180 §7.1.4): no shared secret with them.
    @Test(arguments: [
        "0100000000000000000000000000000000000000000000000000000000000000",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ])
    func lowOrderPeerKeysAreRejected(hex: String) throws {
        let peer = try X25519PublicKey(rawRepresentation: [UInt8](hex: hex))
        let key = try X25519PrivateKey()
        #expect(throws: CryptoError.self) { try key.sharedSecret(with: peer) }
        let config = KeyConfig(keyID: 1, publicKey: peer, aeads: [.aes128GCM])
        #expect(throws: CryptoError.self) { try EnvelopeSealer(keyConfig: config).seal([1, 2, 3]) }
    }

    @Test func anAllZeroPublicKeyIsRejected() {
        #expect(throws: CryptoError.invalidPublicKey("all zeros")) {
            try X25519PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: CryptoError.self) { try X25519PublicKey(rawRepresentation: [UInt8](repeating: 9, count: 31)) }
    }
}
