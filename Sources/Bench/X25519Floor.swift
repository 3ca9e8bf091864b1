import CLibCrypto
import SignalCrypto

/// The bare X25519 work of one seal, straight on libcrypto with no wrapper of ours: one
/// key generation and one derive against a fixed peer.
final class X25519Floor {
    private let peer: OpaquePointer
    private var secret = [UInt8](repeating: 0, count: 32)

    init(peer publicKey: X25519PublicKey) throws {
        guard let peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, publicKey.rawRepresentation, 32) else {
            throw BenchFailure("cannot load the floor's peer key")
        }
        self.peer = peer
    }

    deinit { EVP_PKEY_free(peer) }

    func run() throws {
        guard let keygen = EVP_PKEY_CTX_new_id(EVP_PKEY_X25519, nil) else { throw BenchFailure("EVP_PKEY_CTX_new_id") }
        var key: OpaquePointer?
        let generated = EVP_PKEY_keygen_init(keygen) == 1 && EVP_PKEY_keygen(keygen, &key) == 1
        EVP_PKEY_CTX_free(keygen)
        guard generated, let key else { throw BenchFailure("X25519 keygen") }
        defer { EVP_PKEY_free(key) }
        guard let derive = EVP_PKEY_CTX_new(key, nil) else { throw BenchFailure("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(derive) }
        var length = secret.count
        guard EVP_PKEY_derive_init(derive) == 1, EVP_PKEY_derive_set_peer(derive, peer) == 1,
            EVP_PKEY_derive(derive, &secret, &length) == 1
        else { throw BenchFailure("X25519 derive") }
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
