import CLibCrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension X25519PrivateKey {
    /// The key as an unencrypted PKCS#8 PEM ("BEGIN PRIVATE KEY"), as `openssl pkey` reads it.
    public func pemRepresentation() throws -> SecretBytes { try PEMKeys.pkcs8(key) }

    /// Reads a PEM private key (PKCS#8, or OpenSSL's traditional form) that must be X25519.
    public init(pemRepresentation pem: SecretBytes) throws {
        guard let key = PEMKeys.readPrivateKey(pem) else {
            throw CryptoError.invalidPrivateKey("not a PEM private key")
        }
        try self.init(owning: key)
    }
}

/// Reading and writing key files: private keys must be readable by their owner only;
/// no file is overwritten unless asked.
public enum KeyFiles {
    /// Reads a PEM X25519 private key, refusing a file that group or others can read.
    public static func readPrivateKey(at path: String) throws -> X25519PrivateKey {
        try readKey(at: path, secret: true) { try X25519PrivateKey(pemRepresentation: $0) }
    }

    /// Reads a `.keyconfig` file: one RFC 9458 key configuration, or a collection.
    public static func readKeyConfigs(at path: String) throws -> [KeyConfig] {
        try readKey(at: path, secret: false) { bytes in try bytes.withUnsafeBytes { try KeyConfig.decodeAny($0) } }
    }

    public static func writePrivateKey(_ key: X25519PrivateKey, to path: String, overwrite: Bool) throws {
        let pem = try key.pemRepresentation()
        try pem.withUnsafeBytes { try writeFile($0, to: path, mode: 0o600, overwrite: overwrite) }
    }

    public static func writeKeyConfig(_ config: KeyConfig, to path: String, overwrite: Bool) throws {
        try config.encoded().withUnsafeBytes { try writeFile($0, to: path, mode: 0o644, overwrite: overwrite) }
    }

    /// What `parse` makes of the file at `path`; what it refuses is reported as that file's fault.
    static func readKey<Key>(at path: String, secret: Bool, _ parse: (SecretBytes) throws -> Key) throws -> Key {
        let bytes = try readFile(at: path, secret: secret)
        do {
            return try parse(bytes)
        } catch let error as CryptoError {
            throw CryptoError.keyFile(path: path, reason: error.description)
        }
    }

    /// The whole file, held as a secret when it is one (then group/other access is refused).
    static func readFile(at path: String, secret: Bool) throws -> SecretBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CryptoError.keyFile(path: path, reason: systemError()) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw CryptoError.keyFile(path: path, reason: systemError()) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw CryptoError.keyFile(path: path, reason: "not a regular file")
        }
        let mode = UInt32(info.st_mode) & 0o777
        if secret, mode & 0o077 != 0 {
            throw CryptoError.insecureKeyFile(path: path, mode: mode)
        }
        let size = Int(info.st_size)
        guard size <= 1 << 20 else { throw CryptoError.keyFile(path: path, reason: "larger than 1 MiB") }
        return try SecretBytes(count: size) { buffer in
            var done = 0
            while done < size {
                let n = read(fd, buffer.baseAddress.map { $0 + done }, size - done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    throw CryptoError.keyFile(path: path, reason: n == 0 ? "shorter than its size" : systemError())
                }
                done += n
            }
        }
    }

    /// Writes a new file with `mode` (the umask does not widen or narrow it).
    static func writeFile(_ bytes: UnsafeRawBufferPointer, to path: String, mode: mode_t, overwrite: Bool) throws {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL)
        let fd = open(path, flags, mode)
        guard fd >= 0 else {
            let reason = errno == EEXIST ? "already exists (use --force to replace it)" : systemError()
            throw CryptoError.keyFile(path: path, reason: reason)
        }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0 else { throw CryptoError.keyFile(path: path, reason: systemError()) }
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress.map { $0 + done }, bytes.count - done)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw CryptoError.keyFile(path: path, reason: systemError()) }
            done += n
        }
        guard fsync(fd) == 0 else { throw CryptoError.keyFile(path: path, reason: systemError()) }
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }
}

extension KeyFiles {
    /// NAME.keyconfig beside NAME.key.pem (or beside NAME.pem).
    public static func keyConfigPath(besidePrivateKey path: String) -> String {
        for suffix in [".key.pem", ".pem"] where path.hasSuffix(suffix) {
            return String(path.dropLast(suffix.count)) + ".keyconfig"
        }
        return path + ".keyconfig"
    }
}
