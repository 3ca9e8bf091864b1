import Logging
import SecureSignals
import SharedTypes
import Synchronization
import Timing

/// Keeps an adapter program running: starts it, initializes it, and when it exits starts it
/// again after 2^min(6, n) seconds, n being its exits in a row (2, 4, ... 64 s; counted anew
/// once a run lasted a minute). The first initialization is the adapter's init (the seed's init-once): if it
/// fails, the program is not restarted and the error is the adapter's init error.
actor ProgramSupervisor {
    /// What requests use without a hop through the supervisor: the connection while the
    /// program is up and initialized, and its versions.
    final class Live: Sendable {
        struct State {
            var connection: ProgramConnection?
            var versions: ProgramRun.Versions?
        }

        let state = Mutex(State())
    }

    /// A run that lasts this long resets the backoff.
    static let stableRun = Duration.seconds(60)
    /// The pause before a restart after the n-th exit in a row: 2 s, doubling up to 64 s.
    static let restartBackoff = Backoff(first: .seconds(2), maximum: .seconds(64))

    nonisolated let live = Live()
    /// Fired once, to stop the program for good (a shutdown, a reload, a stop while starting).
    nonisolated let stopSignal = Trigger()
    nonisolated let counters: ProgramCounters
    private let run: ProgramRun
    private let logger: Logger
    /// Where the running program is written down, for a start after a killed daemon.
    private let record: ProgramRecord

    private var state = ProgramStatus.State.starting
    private var pid: Int32?
    private var restarts = 0
    private var lastExit: String?
    private var restartAt: ContinuousClock.Instant?
    private var loop: Task<Void, Never>?
    /// The current run's connection, from its start; requests get it once initialized.
    private var connection: ProgramConnection?
    private var hasInitialized = false

    init(spec: ProgramSpec, context: AdapterContext) {
        self.logger = context.logger
        self.record = ProgramRecord(stateDirectory: context.stateDirectory, adapter: context.name)
        self.counters = ProgramCounters(adapter: context.name, logger: context.logger, metrics: context.metrics)
        self.run = ProgramRun(
            spec: spec, name: context.name, initTimeout: context.initTimeout,
            counters: counters)
    }

    /// Starts the program and returns its versions once it answered `initialize`; throws the
    /// init error otherwise. From then on the program is supervised until `stop`.
    func start() async throws(SignalError) -> ProgramRun.Versions {
        let (first, report) = AsyncStream<Result<ProgramRun.Versions, SignalError>>.makeStream()
        // Ends at `stop`, which cancels it and waits for it (the program is supervised until then).
        let loop = Task { await self.supervise(reportingFirstInitialization: report) }
        self.loop = loop
        // Stopped while starting (a shutdown, or a reload): the program goes with the start.
        let result = await withTaskCancellationHandler {
            var answers = first.makeAsyncIterator()
            return await answers.next()
        } onCancel: { [stopSignal] in
            stopSignal.fire()
        }
        switch result {
        case .success(let versions)?:
            return versions
        case .failure(let error)?:
            await loop.value
            throw error
        case nil:
            await loop.value
            throw SignalError(.adapterInitFailed, "stopped before it initialized")
        }
    }

    private func supervise(
        reportingFirstInitialization report: AsyncStream<Result<ProgramRun.Versions, SignalError>>.Continuation
    ) async {
        defer {
            report.finish()
            state = .stopped
            restartAt = nil
        }
        var exitsInARow = 0
        record.stopLeftover(logger: logger)
        while !stopSignal.hasFired {
            let started = ContinuousClock.now
            state = .starting
            let initFailure = Mutex<SignalError?>(nil)
            let end = await run.run(
                stop: stopSignal,
                started: { pid, connection in await self.started(pid: pid, connection: connection) },
                initialized: { outcome in
                    switch outcome {
                    case .success(let versions):
                        if await self.initialized(versions) { report.yield(.success(versions)) }
                    case .failure(let error):
                        initFailure.withLock { $0 = error }
                        await self.failedToInitialize(error)
                    }
                })
            live.state.withLock { $0.connection = nil }
            counters.up.record(0)
            if let pid { record.remove(pid: pid) }
            pid = nil
            connection = nil
            let how: String
            switch end {
            case .exited(let description): how = description
            case .couldNotStart(let description): how = description
            }
            lastExit = how
            guard hasInitialized else {
                // The first initialization is the adapter's init: its failure is final.
                report.yield(.failure(firstFailure(initFailure.withLock { $0 }, end: end)))
                return
            }
            if stopSignal.hasFired { return }
            if ContinuousClock.now - started >= Self.stableRun { exitsInARow = 0 }
            exitsInARow += 1
            let backoff = Self.restartBackoff.delay(afterFailures: exitsInARow)
            state = .restarting
            restartAt = .now + backoff
            logger.warning(
                "adapter program stopped; restarting it",
                metadata: ["how": "\(how)", "restart_in_s": "\(backoff.components.seconds)"])
            let stopSignal = self.stopSignal
            if case .value = await withTimeout(backoff, operation: { await Trigger.first(of: stopSignal) }) { return }
            restartAt = nil
            restarts += 1
            counters.restartsCounter.increment()
        }
    }

    private func started(pid: Int32, connection: ProgramConnection) {
        self.pid = pid
        self.connection = connection
        record.write(pid: pid, logger: logger)
        logger.info("adapter program started", metadata: ["pid": "\(pid)"])
    }

    /// The running program answered `initialize`: requests may use it. Returns whether this
    /// was its first initialization.
    private func initialized(_ versions: ProgramRun.Versions) -> Bool {
        state = .running
        let connection = self.connection
        live.state.withLock {
            $0.versions = versions
            $0.connection = connection
        }
        counters.up.record(1)
        logger.info(
            "adapter program initialized",
            metadata: ["adapter_version": "\(versions.adapter)", "sdk": "\(versions.sdk)"])
        defer { hasInitialized = true }
        return !hasInitialized
    }

    private func failedToInitialize(_ error: SignalError) {
        logger.error("adapter program failed to initialize", metadata: ["error": "\(error)"])
    }

    /// The init error of a first run that did not initialize, with how the program ended.
    private func firstFailure(_ error: SignalError?, end: ProgramRun.End) -> SignalError {
        switch end {
        case .couldNotStart(let reason):
            return SignalError(.adapterInitFailed, reason)
        case .exited(let how):
            guard let error else { return SignalError(.adapterInitFailed, "the program \(how) before it initialized") }
            if error.message == "the program exited before it answered initialize" {
                let words = counters.lastStderrLine.map { " (its last stderr line: \($0))" } ?? ""
                return SignalError(.adapterInitFailed, "the program \(how) before it answered initialize\(words)")
            }
            return error
        }
    }

    /// Why a request cannot be served now.
    func unavailable() -> SignalError {
        switch state {
        case .starting:
            return SignalError(.sdkUnavailable, "the adapter program is starting")
        case .running:
            return SignalError(.sdkUnavailable, "the adapter program is not connected")
        case .restarting:
            let wait = restartAt.map { max(.zero, $0 - .now).milliseconds } ?? 0
            return SignalError(
                .sdkUnavailable, "the adapter program \(lastExit ?? "stopped"); it restarts in \(wait) ms")
        case .stopped:
            return SignalError(.sdkUnavailable, "the adapter program is stopped")
        }
    }

    func status() -> ProgramStatus {
        ProgramStatus(
            state: state, pid: pid, restarts: restarts, lastExit: lastExit,
            restartInMilliseconds: restartAt.map { Double(max(.zero, $0 - .now).milliseconds) },
            droppedLines: counters.droppedLines, unmatchedReplies: counters.unmatchedReplies,
            suppressedStderrLines: counters.suppressedStderrLines)
    }

    /// Stops the program (its stdin closed, SIGTERM to its group, SIGKILL after the grace
    /// period) and waits until it is gone and reaped.
    func stop() async {
        stopSignal.fire()
        await loop?.value
        loop = nil
    }
}
