import API
import FoundationEssentials
import SharedTypes
import Timing

#if canImport(Glibc)
    import Glibc
#endif

/// The hostile side of `bench soak`, run as a process of its own (under another uid when the
/// benchmark runs as root, so that the daemon's per-peer limits separate it from the probes):
/// connections that send half a request and stall, topped up to their number every second as
/// the daemon refuses or closes them, and event-stream clients that never read.
@MemberwiseInit
public struct SoakAttacker {
    public var socketPath: String
    public var stalled: Int
    public var streams: Int
    public var duration: Duration

    /// Keeps the pressure on for `duration`; returns how many connections it opened in all.
    public func run() async -> Int {
        Self.raiseDescriptorLimit()
        let clock = ContinuousClock()
        let end = clock.now + duration
        var readers: [RawConnection] = []
        for _ in 0..<streams {
            guard let stream = try? await RawConnection.open(socketPath, reads: false) else { continue }
            try? await stream.send("GET \(Endpoints.events.path()) HTTP/1.1\r\n\r\n")
            readers.append(stream)
        }
        var opened = readers.count
        var stalling: [RawConnection] = []
        let socketPath = self.socketPath
        while clock.now < end {
            stalling.removeAll { $0.isClosed }
            let missing = stalled - stalling.count
            opened += missing
            let fresh = await withTaskGroup(of: RawConnection?.self) { group in
                for _ in 0..<missing {
                    group.addTask {
                        guard let connection = try? await RawConnection.open(socketPath) else { return nil }
                        try? await connection.send("GET /v1/hea")
                        return connection
                    }
                }
                var made: [RawConnection] = []
                for await connection in group { if let connection { made.append(connection) } }
                return made
            }
            stalling += fresh
            try? await clock.sleep(for: .seconds(1))
        }
        for connection in stalling + readers { await connection.close() }
        return opened
    }

    /// Two thousand connections need more descriptors than a shell's usual soft limit.
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
