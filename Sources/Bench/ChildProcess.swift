import FoundationEssentials
import Subprocess
import Synchronization
import Timing

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// A program the benchmarks and the tests start and wait for: spawned by swift-subprocess,
/// which gives it none of this process's descriptors and sees its exit through a pidfd on its
/// own thread. Nothing here blocks a thread while the program runs, and a busy process never
/// lags behind a child's exit. (Foundation's `Process` did both: its end of a socket pair leaked
/// into programs spawned beside it, so an exit went unseen until they ended, and
/// `waitUntilExit` held a thread of the cooperative pool meanwhile; two such waits stalled a
/// test run on two cores.)
public final class ChildProcess: Sendable {
    /// How the program ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        /// A shell's number for it: the exit status, or the signal's number.
        public var status: Int32 {
            switch self {
            case .exited(let code), .signaled(let code): code
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }
    }

    public let pid: pid_t
    private let ending: Ending
    /// The one task that runs the program to its end; it ends with the program.
    private let run: OwnedTasks<Int>

    /// Where a standard stream of the program goes: nowhere (`/dev/null`), a file (input read
    /// from it; output appended to it, created if missing: a file, not a pipe, so that none can
    /// fill up), or this process's own.
    public enum Stream: Sendable {
        case null
        case file(String)
        case inherited
    }

    /// Starts `executable` with `arguments`; `environment` replaces this process's when given,
    /// and `workingDirectory` its current directory. Throws when the program cannot be started.
    public static func start(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        workingDirectory: String? = nil, standardInput: Stream = .null, standardOutput: Stream = .null,
        standardError: Stream = .null
    ) async throws -> ChildProcess {
        let input = try standardInput.descriptor(own: .standardInput, writing: false)
        let output = try standardOutput.descriptor(own: .standardOutput, writing: true)
        let error = try standardError.descriptor(own: .standardError, writing: true)
        var variables: [Environment.Key: String] = [:]
        for (key, value) in environment ?? [:] {
            if let key = Environment.Key(rawValue: key) { variables[key] = value }
        }
        let chosen: Environment = environment == nil ? .inherit : .custom(variables)
        let ending = Ending()
        let run = OwnedTasks<Int>()
        let pid = try await withCheckedThrowingContinuation { (started: CheckedContinuation<pid_t, any Error>) in
            let once = Mutex<CheckedContinuation<pid_t, any Error>?>(started)
            run.start {
                do {
                    let result = try await Subprocess.run(
                        .path(FilePath(executable)), arguments: Arguments(arguments), environment: chosen,
                        workingDirectory: workingDirectory.map { FilePath($0) },
                        input: .fileDescriptor(input.descriptor, closeAfterSpawningProcess: input.close),
                        output: .fileDescriptor(output.descriptor, closeAfterSpawningProcess: output.close),
                        error: .fileDescriptor(error.descriptor, closeAfterSpawningProcess: error.close)
                    ) { execution in
                        once.withLock { $0.take() }?.resume(returning: execution.processIdentifier.value)
                    }
                    ending.end(Termination(result.terminationStatus))
                } catch {
                    // Not started (swift-subprocess closes the descriptors it was given either way).
                    once.withLock { $0.take() }?.resume(throwing: error)
                    ending.end(.exited(-1))
                }
            }
        }
        return ChildProcess(pid: pid, ending: ending, run: run)
    }

    /// Starts the program and waits for its end.
    public static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        standardInput: Stream = .null, standardOutput: Stream = .null, standardError: Stream = .null
    ) async throws -> Termination {
        try await start(
            executable, arguments, environment: environment, standardInput: standardInput,
            standardOutput: standardOutput, standardError: standardError
        ).exit()
    }

    private init(pid: pid_t, ending: Ending, run: OwnedTasks<Int>) {
        self.pid = pid
        self.ending = ending
        self.run = run
    }

    /// How it ended; nil while it runs.
    public var termination: Termination? { ending.termination }

    public var isRunning: Bool { termination == nil }

    /// Sends `signal`, unless it has already ended (its pid may be another's by then).
    public func send(_ signal: Int32) {
        guard isRunning else { return }
        kill(pid, signal)
    }

    /// Waits for its end.
    public func exit() async -> Termination {
        await ending.wait()
    }

    /// Waits for its end for up to `timeout`; nil if it still runs then.
    public func exit(within timeout: Duration) async -> Termination? {
        switch await withTimeout(timeout, operation: { await self.exit() }) {
        case .value(let termination): termination
        case .failure, .timedOut: termination
        }
    }

    /// Kills a program still running; its run ends with it.
    deinit {
        if isRunning { kill(pid, SIGKILL) }
    }

    /// The program's end, once known, and who waits for it.
    private final class Ending: Sendable {
        private let state = Mutex<(termination: Termination?, waiting: [CheckedContinuation<Termination, Never>])>(
            (nil, []))

        var termination: Termination? { state.withLock { $0.termination } }

        func end(_ termination: Termination) {
            let waiting = state.withLock { state in
                state.termination = state.termination ?? termination
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in waiting { waiter.resume(returning: termination) }
        }

        func wait() async -> Termination {
            await withCheckedContinuation { continuation in
                let ended = state.withLock { state in
                    if state.termination == nil { state.waiting.append(continuation) }
                    return state.termination
                }
                if let ended { continuation.resume(returning: ended) }
            }
        }
    }
}

extension ChildProcess.Stream {
    /// The descriptor the program gets, and whether it is this process's to close once spawned.
    fileprivate func descriptor(own: FileDescriptor, writing: Bool) throws -> (descriptor: FileDescriptor, close: Bool)
    {
        switch self {
        case .inherited: return (own, false)
        case .null: return (try FileDescriptor.open("/dev/null", writing ? .writeOnly : .readOnly), true)
        case .file(let path) where writing:
            let options: FileDescriptor.OpenOptions = [.append, .create]
            return (
                try FileDescriptor.open(FilePath(path), .writeOnly, options: options, permissions: .ownerReadWrite),
                true
            )
        case .file(let path): return (try FileDescriptor.open(FilePath(path), .readOnly), true)
        }
    }
}

extension ChildProcess.Termination {
    init(_ status: TerminationStatus) {
        switch status {
        case .exited(let code): self = .exited(code)
        case .signaled(let signal): self = .signaled(signal)
        }
    }
}
