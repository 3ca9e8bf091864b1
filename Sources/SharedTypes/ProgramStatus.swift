/// What a supervised adapter program is doing, as `GET /v1/adapters` shows it (every field,
/// unknown ones as null): enough to tell a healthy program from one that crashes, hangs or
/// writes garbage.
@WireKeys
@MemberwiseInit
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
    @Nullable public var pid: Int32?
    /// How many times it was started again after exiting.
    public var restarts: Int
    /// How its last run ended ("exited with status 3", "killed by signal 9").
    @Nullable public var lastExit: String?
    /// When it starts again, while restarting.
    @WireName("restart_in_ms") @Nullable public var restartInMilliseconds: Double?
    /// Lines on its stdout that were not a reply: not JSON, not a reply object, or over 64 KiB.
    public var droppedLines: Int
    /// Replies to an id nobody waits for: unknown, timed out, or already answered.
    public var unmatchedReplies: Int
    /// Lines of stderr left out of the log by its rate limit.
    public var suppressedStderrLines: Int
}
