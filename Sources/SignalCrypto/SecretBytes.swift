import CLibCrypto

/// Bytes that are secret (private keys, shared secrets, derived keys): kept in memory this
/// object owns and wiped with `OPENSSL_cleanse` when it is released.
public final class SecretBytes: @unchecked Sendable {
    // Written only during `init`; immutable afterwards, hence safe to share.
    private let allocation: UnsafeMutableRawBufferPointer
    public let count: Int

    /// No bytes: the empty salt of HKDF-Extract.
    static let empty = SecretBytes([])

    /// Takes a copy of `bytes`.
    public convenience init(_ bytes: some Collection<UInt8>) {
        self.init(count: bytes.count) { _ = $0.initializeMemory(as: UInt8.self, from: bytes) }
    }

    /// Lets `fill` write exactly `count` fresh bytes; a throw wipes whatever it wrote.
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        allocation = .allocate(byteCount: max(count, 1), alignment: 16)
        allocation.initializeMemory(as: UInt8.self, repeating: 0)
        self.count = count
        try fill(UnsafeMutableRawBufferPointer(rebasing: allocation[0..<count]))
    }

    deinit {
        OPENSSL_cleanse(allocation.baseAddress, allocation.count)
        allocation.deallocate()
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: allocation[0..<count]))
    }

    /// A copy of the bytes as an array, for tests and for the one place a secret must
    /// leave (`open` writing the payload). The caller owns wiping it.
    package var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}

extension Array where Element == UInt8 {
    /// Overwrites the array's storage with zeros in a way the optimizer keeps.
    mutating func wipe() {
        withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes as C's `const unsigned char *`.
    var bytePointer: UnsafePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}

extension UnsafeMutableRawBufferPointer {
    var bytePointer: UnsafePointer<UInt8>? { baseAddress.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) } }
    var mutableBytePointer: UnsafeMutablePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}
