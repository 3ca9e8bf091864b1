/// The HPKE algorithm identifiers this implementation supports (RFC 9180 §7).
public enum HPKE {
    public enum KEM: UInt16, CaseIterable, Sendable, CustomStringConvertible, HPKEAlgorithm {
        case x25519HKDFSHA256 = 0x0020

        /// Length of an encapsulated key and of a public key, in bytes.
        public var encapsulatedKeyLength: Int { 32 }
        /// Length of the KEM's shared secret, in bytes.
        var sharedSecretLength: Int { 32 }
        public var description: String { "DHKEM(X25519, HKDF-SHA256) (0x0020)" }

        static let kind = "kem"
    }

    public enum KDF: UInt16, CaseIterable, Sendable, CustomStringConvertible, HPKEAlgorithm {
        case hkdfSHA256 = 0x0001

        /// Nh: the digest length, in bytes.
        var hashLength: Int { 32 }
        public var description: String { "HKDF-SHA256 (0x0001)" }

        static let kind = "kdf"
    }

    public enum AEAD: UInt16, CaseIterable, Sendable, CustomStringConvertible, HPKEAlgorithm {
        case aes128GCM = 0x0001
        case aes256GCM = 0x0002
        case chaCha20Poly1305 = 0x0003

        /// Nk: the key length, in bytes.
        public var keyLength: Int { self == .aes128GCM ? 16 : 32 }
        /// Nn: the nonce length, in bytes.
        public var nonceLength: Int { 12 }
        /// Nt: the tag length, in bytes.
        public var tagLength: Int { 16 }

        /// The name used on the command line and in configuration files.
        public var name: String {
            switch self {
            case .aes128GCM: return "aes-128-gcm"
            case .aes256GCM: return "aes-256-gcm"
            case .chaCha20Poly1305: return "chacha20-poly1305"
            }
        }

        public init?(name: String) {
            guard let aead = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = aead
        }

        public var description: String { "\(name) (0x\(hex16(rawValue)))" }

        static let kind = "aead"
    }

    /// One KEM, KDF and AEAD: everything a sender and a recipient must agree on.
    public struct Suite: Hashable, Sendable {
        public var kem: KEM
        public var kdf: KDF
        public var aead: AEAD

        public init(kem: KEM = .x25519HKDFSHA256, kdf: KDF = .hkdfSHA256, aead: AEAD) {
            self.kem = kem
            self.kdf = kdf
            self.aead = aead
        }

        /// `suite_id` of the key schedule: "HPKE" || kem_id || kdf_id || aead_id.
        var id: [UInt8] {
            Array("HPKE".utf8) + kem.rawValue.bigEndianBytes + kdf.rawValue.bigEndianBytes
                + aead.rawValue.bigEndianBytes
        }
    }
}

extension FixedWidthInteger {
    /// I2OSP: the integer as big-endian bytes of its own width.
    var bigEndianBytes: [UInt8] {
        withUnsafeBytes(of: self.bigEndian) { Array($0) }
    }
}

/// One of HPKE's algorithm registries (KEM, KDF, AEAD): an algorithm is read from its id,
/// and an id this implementation lacks is refused naming the registry.
protocol HPKEAlgorithm: RawRepresentable<UInt16> {
    /// "kem", "kdf" or "aead", as `CryptoError.unsupportedAlgorithm` names it.
    static var kind: String { get }
}

extension HPKEAlgorithm {
    init(id: UInt16) throws {
        guard let algorithm = Self(rawValue: id) else {
            throw CryptoError.unsupportedAlgorithm(kind: Self.kind, id: id)
        }
        self = algorithm
    }
}
