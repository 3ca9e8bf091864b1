#if canImport(Glibc)
    import Glibc
#endif

/// Descriptors held open on `/dev/null` so that accepting connections runs out of descriptors
/// `count` before the process does. Swift's executor on Linux is libdispatch's, whose pool
/// monitor opens `/proc/TID/stat` each second while work waits and aborts the process when that
/// open fails: a daemon whose accepts filled its descriptor table would die. When an accept
/// fails for want of descriptors, the reserve is given back for everything else; it is taken
/// again (and accepting resumes) only once as many descriptors again are free beside it.
///
/// Owned by the listening channel's event loop (`AcceptPause`).
struct DescriptorReserve {
    let count: Int
    private var held: [Int32] = []

    init(count: Int) {
        self.count = count
        _ = take()
    }

    /// Closes the reserve, freeing `count` descriptors.
    mutating func release() {
        for descriptor in held { close(descriptor) }
        held = []
    }

    /// Takes the reserve when `count` more descriptors are free beside it; returns whether it
    /// is held.
    mutating func take() -> Bool {
        guard held.isEmpty else { return true }
        var opened: [Int32] = []
        while opened.count < 2 * count {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { break }
            opened.append(descriptor)
        }
        let enough = opened.count == 2 * count
        for descriptor in enough ? opened.dropFirst(count) : opened[...] { close(descriptor) }
        if enough { held = Array(opened.prefix(count)) }
        return enough
    }
}
