import CLibCrypto
import Testing

@testable import SignalCrypto

/// HKDF is built from libcrypto's HMAC for speed; these hold it to RFC 5869 and to
/// libcrypto's own HKDF.
struct HKDFTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name, ikm, salt, info, prk, okm: String
        var testDescription: String { name }
    }

    static let rfc5869: [Case] = [
        Case(
            name: "A.1 basic", ikm: String(repeating: "0b", count: 22), salt: "000102030405060708090a0b0c",
            info: "f0f1f2f3f4f5f6f7f8f9",
            prk: "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
            okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        Case(
            name: "A.2 long inputs", ikm: (0x00...0x4f).map { String(format: "%02x", $0) }.joined(),
            salt: (0x60...0xaf).map { String(format: "%02x", $0) }.joined(),
            info: (0xb0...0xff).map { String(format: "%02x", $0) }.joined(),
            prk: "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
            okm:
                "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"
        ),
        Case(
            name: "A.3 empty salt and info", ikm: String(repeating: "0b", count: 22), salt: "", info: "",
            prk: "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
            okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test(arguments: rfc5869)
    func reproducesRFC5869(vector: Case) throws {
        let kdf = try HKDF()
        let salt = [UInt8](hex: vector.salt)
        let prk = try [UInt8](hex: vector.ikm).withUnsafeBytes {
            try kdf.extract(salt: salt.isEmpty ? nil : SecretBytes(salt), ikm: $0)
        }
        #expect(prk.bytes.hex == vector.prk)
        let okm = try kdf.expand(prk: prk, info: [UInt8](hex: vector.info), length: vector.okm.count / 2)
        #expect(okm.bytes.hex == vector.okm)
    }

    /// One context reused across steps, as an HPKE setup does, agrees with a fresh
    /// libcrypto HKDF for every step, including empty salts and infos after full ones.
    @Test func agreesWithLibcryptoHKDFStepByStep() throws {
        var generator = SystemRandomNumberGenerator()
        let kdf = try HKDF()
        for round in 0..<200 {
            let ikm = (0..<Int.random(in: 0...100, using: &generator)).map { _ in UInt8.random(in: 0...255) }
            let salt = round % 3 == 0 ? [] : (0..<Int.random(in: 1...80)).map { _ in UInt8.random(in: 0...255) }
            let info = round % 4 == 0 ? [] : (0..<Int.random(in: 1...120)).map { _ in UInt8.random(in: 0...255) }
            let length = [1, 12, 16, 31, 32, 33, 64, 65, 255, 1000][round % 10]

            let prk = try ikm.withUnsafeBytes { try kdf.extract(salt: salt.isEmpty ? nil : SecretBytes(salt), ikm: $0) }
            #expect(prk.bytes == reference(mode: EVP_KDF_HKDF_MODE_EXTRACT_ONLY, ikm, salt, 32), "extract \(round)")
            let okm = try kdf.expand(prk: prk, info: info, length: length)
            #expect(
                okm.bytes == reference(mode: EVP_KDF_HKDF_MODE_EXPAND_ONLY, prk.bytes, info, length), "expand \(round)")
        }
    }

    @Test func refusesLengthsPast255Blocks() throws {
        let kdf = try HKDF()
        #expect(throws: CryptoError.self) { try kdf.expand(prk: SecretBytes([1]), info: [], length: 255 * 32 + 1) }
    }

    private func reference(mode: Int32, _ secret: [UInt8], _ extra: [UInt8], _ length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        let ok = ss_hkdf_reference(mode, secret, secret.count, extra, extra.count, &out, length)
        #expect(ok == 1)
        return out
    }
}
