import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program a benchmark starts (a daemon, an attacker, `--version`), spawned with
/// posix_spawn(3) and reaped by waitpid(2): Foundation's `Process` without Foundation.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    /// The wait status once reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `path` with `arguments` and `environment` (this process's when nil); `quiet`
    /// sends its standard output to /dev/null.
    public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil, quiet: Bool = false)
        throws
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for pointer in argv + (envp ?? []) { free(pointer) }
        }
        var child: pid_t = 0
        let result =
            if let envp {
                posix_spawn(&child, path, &actions, nil, argv, envp)
            } else {
                posix_spawn(&child, path, &actions, nil, argv, environ)
            }
        guard result == 0 else { throw BenchFailure("cannot start \(path): \(String(cString: strerror(result)))") }
        pid = child
    }

    /// Whether it still runs; once it has exited, it is reaped here.
    public var isRunning: Bool {
        reaped.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
            status = raw
            return false
        }
    }

    /// Its exit status, or the signal that ended it; nil while it runs.
    public var terminationStatus: Int32? {
        guard !isRunning, let raw = reaped.withLock({ $0 }) else { return nil }
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }

    /// Blocks until it exits (a benchmark's end, or a child about to end).
    public func waitUntilExit() {
        var raw: Int32 = 0
        while isRunning {
            let result = waitpid(pid, &raw, 0)
            if result == pid {
                reaped.withLock { $0 = $0 ?? raw }
                return
            }
            // Reaped meanwhile by `isRunning` on another thread: its status is kept.
            if result == -1 && errno != EINTR { return }
        }
    }

    /// When it exited, as `clock` saw it: waited for on a Dispatch thread, so that no thread
    /// of the cooperative pool is blocked while it runs.
    public func exit(on clock: ContinuousClock) async -> ContinuousClock.Instant {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.waitUntilExit()
                continuation.resume(returning: clock.now)
            }
        }
    }
}
