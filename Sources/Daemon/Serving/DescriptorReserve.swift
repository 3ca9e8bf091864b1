import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

/// Descriptors held open on `/dev/null` so that accepting connections runs out of descriptors
/// `count` before the process does. Swift's executor on Linux is libdispatch's, whose pool
/// monitor opens `/proc/TID/stat` each second while work waits and aborts the process when that
/// open fails: a daemon whose accepts filled its descriptor table would die. When no descriptor
/// is left beside the reserve, it is given back for everything else; it is taken again (and
/// accepting resumes) once it and `margin` more fit under the open-file limit.
///
/// Owned by the listening channel's event loop (`AcceptPause`); closed when it goes.
struct DescriptorReserve: ~Copyable {
    let count: Int
    let margin: Int
    private var held: [Int32] = []

    init(count: Int, margin: Int) {
        self.count = count
        self.margin = margin
        _ = take()
    }

    deinit {
        for descriptor in held { close(descriptor) }
    }

    var isHeld: Bool { !held.isEmpty }

    /// Closes the reserve, freeing `count` descriptors.
    mutating func release() {
        for descriptor in held { close(descriptor) }
        held = []
    }

    /// Whether a descriptor is still free beside the reserve: one is opened and closed again.
    func leavesRoom() -> Bool {
        let probe = held.first.map { fcntl($0, F_DUPFD_CLOEXEC, 0) } ?? open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard probe >= 0 else { return false }
        close(probe)
        return true
    }

    /// Takes the reserve when it and `margin` more descriptors are free (counted, never found by
    /// running out); returns whether it is held.
    mutating func take() -> Bool {
        guard held.isEmpty else { return true }
        guard let free = Self.freeDescriptors(), free >= count + margin else { return false }
        while held.count < count {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                release()
                return false
            }
            held.append(descriptor)
        }
        return true
    }

    /// The descriptor numbers below the soft open-file limit that no file holds: only they can
    /// be opened (one above a limit lowered under the process stays open, and counts for none).
    /// Nil when they cannot be counted (reading `/proc/self/fd` takes one).
    static func freeDescriptors() -> Int? {
        guard let limit = OpenFileLimit.current, let open = ProcFiles.openDescriptorNumbers(of: getpid()) else {
            return nil
        }
        guard limit.rlim_cur != rlim_t.max else { return Int.max }
        let soft = Int(limit.rlim_cur)
        // The listing's own descriptor was among them, and is closed again.
        return soft - (open.filter { $0 < soft }.count - 1)
    }
}
