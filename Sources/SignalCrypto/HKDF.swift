import CLibCrypto

/// HKDF-SHA256 (RFC 5869) with the labeled forms of RFC 9180 §4, as the HMAC steps
/// RFC 5869 §2 defines, on libcrypto's HMAC. One instance serves the steps of one HPKE
/// setup on one re-keyed context: OpenSSL 3.0's own HKDF fetches HMAC anew on every
/// Extract, which cost a seal a fifth of its X25519 work. Tests hold it to libcrypto's
/// HKDF and to RFC 5869's vectors. Not for sharing between tasks.
final class HKDF {
    static let hashLength = 32
    private static let versionLabel = Array("HPKE-v1".utf8)

    private let context: OpaquePointer

    init() throws {
        guard let context = ss_hmac_sha256_new(LibCrypto.shared.hmac) else {
            throw CryptoError.libcrypto("HMAC context: \(LibCrypto.lastError())")
        }
        self.context = context
    }

    /// Frees the context; libcrypto wipes the key it holds.
    deinit { EVP_MAC_CTX_free(context) }

    /// Extract(salt, IKM) = HMAC-Hash(salt, IKM); an absent salt is the empty string,
    /// which HMAC pads to HashLen zeros as RFC 5869 says.
    func extract(salt: SecretBytes?, ikm: UnsafeRawBufferPointer) throws -> SecretBytes {
        try SecretBytes(count: Self.hashLength) { out in
            let ok = (salt ?? SecretBytes.empty).withUnsafeBytes { salt in
                ss_hmac_sha256(
                    context, salt.bytePointer, salt.count, ikm.bytePointer, ikm.count, nil, 0, nil, 0,
                    out.mutableBytePointer)
            }
            guard ok == 1 else { throw CryptoError.libcrypto("HKDF-Extract: \(LibCrypto.lastError())") }
        }
    }

    /// Expand(PRK, info, L): T(i) = HMAC-Hash(PRK, T(i-1) || info || i), the first L bytes of T(1) || T(2) ...
    func expand(prk: SecretBytes, info: [UInt8], length: Int) throws -> SecretBytes {
        guard length <= 255 * Self.hashLength else {
            throw CryptoError.libcrypto("HKDF-Expand of \(length) bytes exceeds 255 * HashLen")
        }
        return try SecretBytes(count: length) { out in
            var block = [UInt8](repeating: 0, count: Self.hashLength)
            defer { block.wipe() }
            var previous = 0
            var written = 0
            var counter: UInt8 = 1
            while written < length {
                let ok = prk.withUnsafeBytes { prk in
                    info.withUnsafeBytes { info in
                        block.withUnsafeMutableBytes { block in
                            ss_hmac_sha256(
                                context, prk.bytePointer, prk.count, block.bytePointer, previous,
                                info.bytePointer, info.count, &counter, 1, block.mutableBytePointer)
                        }
                    }
                }
                guard ok == 1 else { throw CryptoError.libcrypto("HKDF-Expand: \(LibCrypto.lastError())") }
                let take = min(Self.hashLength, length - written)
                block.withUnsafeBytes { block in
                    UnsafeMutableRawBufferPointer(rebasing: out[written..<written + take])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: block[0..<take]))
                }
                written += take
                previous = Self.hashLength
                counter &+= 1
            }
        }
    }

    /// LabeledExtract(salt, label, ikm) = Extract(salt, "HPKE-v1" || suite_id || label || ikm).
    func labeledExtract(
        suiteID: [UInt8], salt: SecretBytes? = nil, label: String, ikm: UnsafeRawBufferPointer
    ) throws -> SecretBytes {
        var labeled: [UInt8] = []
        labeled.reserveCapacity(Self.versionLabel.count + suiteID.count + label.utf8.count + ikm.count)
        labeled += Self.versionLabel
        labeled += suiteID
        labeled += label.utf8
        labeled += ikm
        defer { labeled.wipe() }
        return try labeled.withUnsafeBytes { try extract(salt: salt, ikm: $0) }
    }

    func labeledExtract(
        suiteID: [UInt8], salt: SecretBytes? = nil, label: String, ikm: [UInt8]
    ) throws -> SecretBytes {
        try ikm.withUnsafeBytes { try labeledExtract(suiteID: suiteID, salt: salt, label: label, ikm: $0) }
    }

    func labeledExtract(
        suiteID: [UInt8], salt: SecretBytes? = nil, label: String, ikm: SecretBytes
    ) throws -> SecretBytes {
        try ikm.withUnsafeBytes { try labeledExtract(suiteID: suiteID, salt: salt, label: label, ikm: $0) }
    }

    /// LabeledExpand(prk, label, info, L) = Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L).
    func labeledExpand(
        suiteID: [UInt8], prk: SecretBytes, label: String, info: [UInt8], length: Int
    ) throws -> SecretBytes {
        var labeled: [UInt8] = []
        labeled.reserveCapacity(2 + Self.versionLabel.count + suiteID.count + label.utf8.count + info.count)
        labeled += UInt16(length).bigEndianBytes
        labeled += Self.versionLabel
        labeled += suiteID
        labeled += label.utf8
        labeled += info
        return try expand(prk: prk, info: labeled, length: length)
    }
}
