/// What a supervised adapter program is doing, as `GET /v1/adapters` shows it: enough to tell
/// a healthy program from one that crashes, hangs or writes garbage.
public struct ProgramStatus: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        /// Started, not yet initialized.
        case starting
        case running
        /// Exited; it starts again after its backoff.
        case restarting
        case stopped
    }

    public var state: State
    public var pid: Int32?
    /// How many times it was started again after exiting.
    public var restarts: Int
    /// How its last run ended ("exited with status 3", "killed by signal 9").
    public var lastExit: String?
    /// When it starts again, while restarting.
    public var restartInMilliseconds: Double?
    /// Lines on its stdout that were not a reply: not JSON, not a reply object, or over 64 KiB.
    public var droppedLines: Int
    /// Replies to an id nobody waits for: unknown, timed out, or already answered.
    public var unmatchedReplies: Int
    /// Lines of stderr left out of the log by its rate limit.
    public var suppressedStderrLines: Int

    public init(
        state: State, pid: Int32?, restarts: Int, lastExit: String?, restartInMilliseconds: Double?,
        droppedLines: Int, unmatchedReplies: Int, suppressedStderrLines: Int
    ) {
        self.state = state
        self.pid = pid
        self.restarts = restarts
        self.lastExit = lastExit
        self.restartInMilliseconds = restartInMilliseconds
        self.droppedLines = droppedLines
        self.unmatchedReplies = unmatchedReplies
        self.suppressedStderrLines = suppressedStderrLines
    }

    enum CodingKeys: String, CodingKey {
        case state, pid, restarts
        case lastExit = "last_exit"
        case restartInMilliseconds = "restart_in_ms"
        case droppedLines = "dropped_lines"
        case unmatchedReplies = "unmatched_replies"
        case suppressedStderrLines = "suppressed_stderr_lines"
    }

    /// Every field, unknown ones as null, so that clients see one shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(pid, forKey: .pid)
        try container.encode(restarts, forKey: .restarts)
        try container.encode(lastExit, forKey: .lastExit)
        try container.encode(restartInMilliseconds, forKey: .restartInMilliseconds)
        try container.encode(droppedLines, forKey: .droppedLines)
        try container.encode(unmatchedReplies, forKey: .unmatchedReplies)
        try container.encode(suppressedStderrLines, forKey: .suppressedStderrLines)
    }
}
