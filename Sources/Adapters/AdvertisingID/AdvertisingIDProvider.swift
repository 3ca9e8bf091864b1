import FoundationEssentials
import Logging
import Mediation
import SharedTypes
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

/// The device's advertising id from the platform (`advertising_id`): a file it keeps, or a
/// program that prints it, read when a load asks and the last reading is older than `refresh_ms`
/// on the daemon's clock (callers asking meanwhile wait for that one reading). A file is read up
/// to `AdvertisingIDReading.byteLimit` bytes; a program runs in its own process group under its
/// `timeout_ms` (then killed with its group) and its output is bounded the same way. A reading
/// that fails answers nil until the next: the failure is logged at warning once for each new
/// reason (and the recovery at notice), never with what was read, and nothing throws.
public final class AdvertisingIDProvider<C: Clock>: AdvertisingIDSource
where C.Duration == Duration, C: Sendable {
    /// Where the id is read.
    public enum Origin: Sendable, Equatable {
        case file(String)
        case program(executable: String, arguments: [String], timeout: Duration)
    }

    private struct State {
        var id: AdvertisingID?
        var readAt: C.Instant?
        var reading = false
        var waiting: [CheckedContinuation<AdvertisingID?, Never>] = []
        /// Why the last reading failed; nil after one that worked.
        var failure: String?
    }

    private let origin: Origin
    private let type: IFAType
    private let refresh: Duration
    private let clock: C
    private let logger: Logger
    private let state = Mutex(State())

    public init(origin: Origin, type: IFAType, refresh: Duration, clock: C, logger: Logger) {
        self.origin = origin
        self.type = type
        self.refresh = refresh
        self.clock = clock
        self.logger = logger
    }

    /// The source `settings` name (checked by their `validate`).
    public convenience init(settings: AdvertisingIDSettings, clock: C, logger: Logger) {
        let origin: Origin
        if let program = settings.program, let executable = program.first {
            origin = .program(
                executable: executable, arguments: Array(program.dropFirst()),
                timeout: .milliseconds(
                    settings.timeoutMilliseconds ?? AdvertisingIDSettings.defaultTimeoutMilliseconds))
        } else {
            origin = .file(settings.file ?? "")
        }
        self.init(
            origin: origin, type: settings.type, refresh: .milliseconds(settings.refreshMilliseconds), clock: clock,
            logger: logger)
    }

    /// What a caller does: take the reading, wait for the one under way, or read.
    private enum Next {
        case answer(AdvertisingID?)
        case join
        case read
    }

    public func current() async -> AdvertisingID? {
        let now = clock.now
        let refresh = self.refresh
        let next = state.withLock { state -> Next in
            if let readAt = state.readAt, readAt.duration(to: now) < refresh { return .answer(state.id) }
            if state.reading { return .join }
            state.reading = true
            return .read
        }
        switch next {
        case .answer(let id):
            return id
        case .join:
            return await withCheckedContinuation { continuation in
                let done = state.withLock { state -> AdvertisingID?? in
                    guard state.reading else { return .some(state.id) }
                    state.waiting.append(continuation)
                    return .none
                }
                if case .some(let id) = done { continuation.resume(returning: id) }
            }
        case .read:
            // Bounded (a file's bytes, a program's timeout): a cancelled caller does not cut
            // short the reading others wait for.
            let outcome = await uncancelled { await self.read() }
            let readAt = clock.now
            let waiting = state.withLock { state in
                state.id = try? outcome.get()
                state.readAt = readAt
                state.reading = false
                defer { state.waiting = [] }
                return state.waiting
            }
            report(outcome)
            let id = try? outcome.get()
            for continuation in waiting { continuation.resume(returning: id) }
            return id
        }
    }

    /// What the source names, for the log (never what it holds).
    private var source: String {
        switch origin {
        case .file(let path): path
        case .program(let executable, _, _): executable
        }
    }

    /// A new failure at warning, a recovery at notice; the id never.
    private func report(_ outcome: Result<AdvertisingID, AdvertisingIDReading.Failure>) {
        let reason: String?
        switch outcome {
        case .success(let id):
            reason = nil
            logger.debug(
                "the advertising id was read",
                metadata: ["source": "\(source)", "ifa_type": "\(id.type.rawValue)", "lmt": "\(id.limitAdTracking)"])
        case .failure(let failure):
            reason = failure.reason
        }
        let previous = state.withLock { state in
            defer { state.failure = reason }
            return state.failure
        }
        guard reason != previous else { return }
        if let reason {
            logger.warning(
                "the advertising id cannot be read: bid requests carry none until it can",
                metadata: ["source": "\(source)", "reason": "\(reason)"])
        } else {
            logger.notice("the advertising id can be read again", metadata: ["source": "\(source)"])
        }
    }

    private func read() async -> Result<AdvertisingID, AdvertisingIDReading.Failure> {
        do throws(AdvertisingIDReading.Failure) {
            switch origin {
            case .file(let path):
                return .success(try AdvertisingIDReading.parse(try Self.bytes(of: path), type: type))
            case .program(let executable, let arguments, let timeout):
                let output = try await Self.output(of: executable, arguments, timeout: timeout)
                return .success(try AdvertisingIDReading.parse(output, type: type))
            }
        } catch {
            return .failure(error)
        }
    }

    /// The file's first bytes, one more than the limit at most (so that more is seen).
    private static func bytes(of path: String) throws(AdvertisingIDReading.Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "it does not exist"
            throw AdvertisingIDReading.Failure(reason: reason)
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: AdvertisingIDReading.byteLimit + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                Glibc.read(fd, $0.baseAddress?.advanced(by: filled), $0.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw AdvertisingIDReading.Failure(reason: "it cannot be read") }
            if count == 0 { break }
            filled += count
        }
        return Array(bytes.prefix(filled))
    }

    /// What the program prints on its standard output, when it exits with status 0 in time.
    private static func output(of executable: String, _ arguments: [String], timeout: Duration)
        async throws(AdvertisingIDReading.Failure) -> [UInt8]
    {
        var options = PlatformOptions()
        options.processGroupID = 0
        // At the timeout (a cancellation): its whole group, at once.
        options.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: .zero)]
        let platform = options
        let outcome = await withTimeout(timeout) { () async throws -> (status: String?, output: [UInt8]) in
            let result = try await Subprocess.run(
                .path(FilePath(executable)), arguments: Arguments(arguments), platformOptions: platform,
                output: .bytes(limit: AdvertisingIDReading.byteLimit))
            if case .exited(0) = result.terminationStatus { return (nil, result.standardOutput) }
            return (ProgramRun.describe(result.terminationStatus), [])
        }
        switch outcome {
        case .value(let ran):
            if let status = ran.status { throw AdvertisingIDReading.Failure(reason: "the program \(status)") }
            return ran.output
        case .failure(let error as SubprocessError) where error.code == .outputLimitExceeded:
            throw AdvertisingIDReading.Failure(
                reason: "the program printed more than \(AdvertisingIDReading.byteLimit) bytes")
        case .failure:
            throw AdvertisingIDReading.Failure(reason: "the program cannot be run")
        case .timedOut:
            throw AdvertisingIDReading.Failure(reason: "the program did not finish within \(timeout.milliseconds) ms")
        }
    }
}
