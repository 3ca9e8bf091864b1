import Logging
import Metrics
import SecureSignals
import Synchronization

/// What one adapter program did wrong, over all its runs: counted for `/v1/adapters`, exported
/// as metrics, and logged at a bounded rate. Never logs what a program wrote on stdout, which
/// may be a signal; stderr is the program's own diagnostics channel and is logged.
final class ProgramCounters: Sendable {
    enum DroppedLine: String {
        case notJSON = "not_json"
        case notAReply = "not_a_reply"
        case tooLong = "too_long"
    }

    private struct State {
        var droppedLines = 0
        var unmatchedReplies = 0
        var suppressedStderrLines = 0
        var lastStderrLine: String?
        var stderrLog = RateLimit(burst: 20, perSecond: 10)
        var faultLog = RateLimit(burst: 5, perSecond: 1)
    }

    private let adapter: String
    private let logger: Logger
    private let state = Mutex(State())
    private let dropped: [DroppedLine: Counter]
    private let unmatched: Counter
    private let stderrLogged: Counter
    private let stderrSuppressed: Counter
    let restartsCounter: Counter
    let up: Gauge

    /// Longest stderr line logged; the rest is cut.
    static let stderrLineLimit = 1024

    init(adapter: String, logger: Logger, metrics factory: any MetricsFactory) {
        self.adapter = adapter
        self.logger = logger
        let dimensions = [("adapter", adapter)]
        dropped = Dictionary(
            uniqueKeysWithValues: [DroppedLine.notJSON, .notAReply, .tooLong].map {
                (
                    $0,
                    Counter(
                        label: "secure_signals_program_dropped_lines_total",
                        dimensions: dimensions + [("reason", $0.rawValue)], factory: factory)
                )
            })
        unmatched = Counter(
            label: "secure_signals_program_unmatched_replies_total", dimensions: dimensions, factory: factory)
        stderrLogged = Counter(
            label: "secure_signals_program_stderr_lines_total", dimensions: dimensions + [("outcome", "logged")],
            factory: factory)
        stderrSuppressed = Counter(
            label: "secure_signals_program_stderr_lines_total", dimensions: dimensions + [("outcome", "suppressed")],
            factory: factory)
        restartsCounter = Counter(
            label: "secure_signals_program_restarts_total", dimensions: dimensions, factory: factory)
        up = Gauge(label: "secure_signals_program_up", dimensions: dimensions, factory: factory)
        up.record(0)
    }

    var droppedLines: Int { state.withLock { $0.droppedLines } }
    var unmatchedReplies: Int { state.withLock { $0.unmatchedReplies } }
    var suppressedStderrLines: Int { state.withLock { $0.suppressedStderrLines } }
    /// The program's last words on stderr, cut short: the likeliest reason it failed.
    var lastStderrLine: String? { state.withLock { $0.lastStderrLine } }

    func dropLine(_ reason: DroppedLine, bytes: Int) {
        dropped[reason]?.increment()
        recordFault(
            { $0.droppedLines += 1 }, "dropped a line from the program's stdout",
            ["reason": "\(reason.rawValue)", "bytes": "\(bytes)"])
    }

    func unmatchedReply(id: Int) {
        unmatched.increment()
        recordFault(
            { $0.unmatchedReplies += 1 }, "dropped a reply nobody waits for (unknown id, late, or a second answer)",
            ["id": "\(id)"])
    }

    /// Counts a fault with `count`, and logs it unless faults are over their log rate.
    private func recordFault(_ count: (inout State) -> Void, _ message: Logger.Message, _ metadata: Logger.Metadata) {
        let (admitted, refused) = state.withLock { state in
            count(&state)
            return state.faultLog.admit(at: .now)
        }
        guard admitted else { return }
        logger.warning(
            message,
            metadata: metadata.merging(["adapter": "\(adapter)", "similar_left_out": "\(refused)"]) { $1 })
    }

    /// One line the program wrote on stderr.
    func stderr(_ line: [UInt8]) {
        let text = String(decoding: line.prefix(Self.stderrLineLimit), as: UTF8.self)
        let (admitted, refused, firstLeftOut) = state.withLock { state in
            if !text.isEmpty { state.lastStderrLine = String(text.prefix(200)) }
            let decision = state.stderrLog.admit(at: .now)
            if !decision.admitted { state.suppressedStderrLines += 1 }
            return (decision.admitted, decision.refusedBefore, state.stderrLog.refusedSinceLastAdmitted == 1)
        }
        guard admitted else {
            stderrSuppressed.increment()
            if firstLeftOut {
                logger.warning(
                    "program's stderr is over its log rate; leaving lines out", metadata: ["adapter": "\(adapter)"])
            }
            return
        }
        stderrLogged.increment()
        if refused > 0 {
            logger.warning(
                "program's stderr is back under its log rate; lines were left out",
                metadata: ["adapter": "\(adapter)", "left_out": "\(refused)"])
        }
        logger.info("\(text)", metadata: ["adapter": "\(adapter)", "stream": "stderr"])
    }
}
