import FoundationEssentials
import Logging
import SecureSignals
import SharedTypes
import Subprocess
import Timing

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// One run of an adapter program: start it in its own process group, initialize it, and serve
/// its stdin, stdout and stderr until it exits, or until `stop` fires: then its stdin is closed
/// and its group gets SIGTERM, then SIGKILL after the grace period. Returns how the run ended.
struct ProgramRun: Sendable {
    /// Longest stdout line taken as a reply; longer ones are dropped.
    static let lineLimit = 64 * 1024

    /// The program's versions, from its answer to `initialize`.
    struct Versions: Sendable, Equatable {
        var adapter: SemanticVersion
        var sdk: SemanticVersion
    }

    enum End: Sendable {
        /// Started, then exited (or was stopped): how.
        case exited(String)
        case couldNotStart(String)
    }

    let spec: ProgramSpec
    let name: String
    let initTimeout: Duration
    let counters: ProgramCounters

    /// The program's execution, as `run` hands it to its body.
    typealias ProgramExecution = Execution<CustomWriteInput, SequenceOutput, SequenceOutput>

    func run(
        stop: Trigger,
        started: @escaping @Sendable (Int32, ProgramConnection) async -> Void,
        initialized: @escaping @Sendable (Result<Versions, SignalError>) async -> Void
    ) async -> End {
        var platform = PlatformOptions()
        platform.processGroupID = 0
        // Only if the task running this is cancelled; a stop goes through `stop` instead.
        platform.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: spec.stopGrace)]
        var environment: [Environment.Key: String?] = [:]
        for (key, value) in spec.environment {
            if let key = Environment.Key(rawValue: key) { environment[key] = value }
        }
        do {
            let result = try await Subprocess.run(
                .path(FilePath(spec.executable)), arguments: Arguments(spec.arguments),
                environment: .inherit.updating(environment), platformOptions: platform,
                input: .inputWriter, output: .sequence, error: .sequence
            ) { execution in
                let connection = ProgramConnection(counters: counters)
                await started(execution.processIdentifier.value, connection)
                await serve(execution, connection: connection, stop: stop, initialized: initialized)
            }
            return .exited(Self.describe(result.terminationStatus))
        } catch {
            return .couldNotStart("cannot start \(spec.executable): \(error)")
        }
    }

    /// Everything a running program needs at once: its stop, its stdin, its stdout and stderr
    /// read to their end, and its initialization. Returns when all are done.
    private func serve(
        _ execution: ProgramExecution, connection: ProgramConnection, stop: Trigger,
        initialized: @escaping @Sendable (Result<Versions, SignalError>) async -> Void
    ) async {
        let exited = Trigger()
        /// This run should end: its initialization failed.
        let end = Trigger()
        let counters = self.counters
        let grace = spec.stopGrace
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await Self.stop(execution, connection: connection, on: stop, or: end, unless: exited, grace: grace)
            }
            group.addTask { await Self.write(connection.outgoing, to: execution.standardInputWriter, connection) }
            // The readers are not cancelled with the run (`uncancelled`): they read to the real
            // end of the program's output, so that its last words reach the log and its exit is
            // seen. Each ends with the program's output, and is awaited here.
            group.addTask {
                await uncancelled {
                    await Self.readReplies(execution, connection: connection, counters: counters, exited: exited)
                }
            }
            group.addTask {
                await uncancelled {
                    await Self.forEachLine(of: execution.standardError, limit: Self.lineLimit) { piece in
                        switch piece {
                        case .line(let line): counters.stderr(line)
                        case .tooLong(let count): counters.stderr(Array("(a line of \(count) bytes)".utf8))
                        }
                    }
                }
            }
            group.addTask {
                let outcome = await self.initialize(connection)
                await initialized(outcome)
                if case .failure = outcome { end.fire() }
            }
        }
    }

    /// At a stop (or the end of a failed initialization): SIGTERM to the group, the grace
    /// period, then SIGKILL; nothing when the program already exited.
    private static func stop(
        _ execution: ProgramExecution, connection: ProgramConnection, on stop: Trigger, or end: Trigger,
        unless exited: Trigger, grace: Duration
    ) async {
        await Trigger.first(of: stop, end, exited)
        guard !exited.hasFired else { return }
        await connection.close(because: SignalError(.sdkUnavailable, "the adapter program is stopping"))
        try? execution.send(signal: .terminate, toProcessGroup: true)
        if case .timedOut = await withTimeout(grace, operation: { await Trigger.first(of: exited) }) {
            try? execution.send(signal: .kill, toProcessGroup: true)
        }
    }

    /// Writes the connection's request lines to the program's stdin until either side ends.
    private static func write(
        _ lines: AsyncStream<[UInt8]>, to writer: StandardInputWriter, _ connection: ProgramConnection
    ) async {
        for await line in lines {
            do {
                _ = try await writer.write(line)
            } catch {
                break  // the program closed its stdin or exited
            }
            await connection.wrote(line.count)
        }
        try? await writer.finish()
    }

    /// Reads the program's replies to the end of its stdout, then takes whatever it left
    /// running in its group along: its stdout is closed, so it is gone or useless. (The group
    /// cannot be reused yet: the program is not reaped before `run`'s body returns.)
    private static func readReplies(
        _ execution: ProgramExecution, connection: ProgramConnection, counters: ProgramCounters, exited: Trigger
    ) async {
        await forEachLine(of: execution.standardOutput, limit: lineLimit) { piece in
            switch piece {
            case .line(let line): await connection.receive(line)
            case .tooLong(let count): counters.dropLine(.tooLong, bytes: count)
            }
        }
        await connection.close(because: SignalError(.sdkUnavailable, "the adapter program exited"))
        exited.fire()
        try? execution.send(signal: .kill, toProcessGroup: true)
    }

    /// Sends `initialize` (id 0) and reads the program's versions from its answer.
    private func initialize(_ connection: ProgramConnection) async -> Result<Versions, SignalError> {
        let params = ExecMessage.InitializeParams(adapter: name, options: spec.options)
        let outcome = await withTimeout(initTimeout) { try await connection.call("initialize", params, id: 0) }
        switch outcome {
        case .value(let result):
            guard let adapter = result.adapterVersion.flatMap(SemanticVersion.init(parsing:)),
                let sdk = result.sdkVersion.flatMap(SemanticVersion.init(parsing:))
            else {
                return .failure(
                    SignalError(
                        .adapterInitFailed,
                        "the initialize result needs adapter_version and sdk_version as MAJOR.MINOR.PATCH"))
            }
            return .success(Versions(adapter: adapter, sdk: sdk))
        case .failure(let error as ProgramReportedError):
            let codes = Set(SignalError.Code.allCases).subtracting([.circuitOpen, .unknownAdapter, .signalTooLarge])
            return .failure(ExecMessage.error(error.body, allowed: codes, fallback: .adapterInitFailed))
        case .failure(let error as SignalError) where error.code == .sdkUnavailable:
            return .failure(SignalError(.adapterInitFailed, "the program exited before it answered initialize"))
        case .failure(let error):
            return .failure(SignalError.from(error, fallback: .adapterInitFailed))
        case .timedOut:
            return .failure(
                SignalError(.adapterInitFailed, "no answer to initialize within \(initTimeout.milliseconds) ms"))
        }
    }

    /// Reads `stream` to its end, handing over each line (or each line too long to keep).
    private static func forEachLine(
        of stream: SubprocessOutputSequence, limit: Int, _ body: (LineFramer.Piece) async -> Void
    ) async {
        var framer = LineFramer(limit: limit)
        do {
            for try await buffer in stream {
                let pieces = buffer.withUnsafeBytes { framer.append($0) }
                for piece in pieces { await body(piece) }
            }
        } catch {
            // A read error ends the stream as its end would.
        }
        for piece in framer.finish() { await body(piece) }
    }

    static func describe(_ status: TerminationStatus) -> String {
        switch status {
        case .exited(let code): return "exited with status \(code)"
        case .signaled(let signal): return "killed by signal \(signal)"
        }
    }
}

extension Duration {
    /// Whole milliseconds, for messages.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
