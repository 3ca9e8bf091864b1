import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

extension FileManager {
    /// The size in bytes of the file at `path` (following a link); nil when it cannot be read.
    /// Read with stat(2): `attributesOfItem`'s `.size` is a `UInt` in FoundationEssentials and an
    /// `NSNumber` where Foundation is loaded too (the tests), so a cast right in one is nil in the
    /// other, and a size check written with it is silently skipped.
    public func sizeOfItem(atPath path: String) -> Int? {
        var info = Glibc.stat()
        guard fstatat(AT_FDCWD, path, &info, 0) == 0 else { return nil }
        return Int(info.st_size)
    }
}
