import SharedTypes

/// A tracker ping the daemon owes: stored before the call that caused it answers, removed once
/// the tracker answered or the ping was given up.
@MemberwiseInit
public struct OwedPing: Sendable, Equatable {
    /// The store's id (increasing in the order pings were stored).
    public var id: Int64
    public var url: String
    public var kind: TrackerQueue.Kind
    /// When it was first owed, wall-clock milliseconds (it is given up `maxAge` after).
    public var createdAt: Int64
    /// Tries so far.
    public var attempts: Int
    /// When the next try is due, wall-clock milliseconds.
    public var dueAt: Int64
}

/// One commit of the outbox: pings to store, pings settled (sent, refused or given up) and
/// pings to try again later, written together so that they share one sync to disk.
public struct OutboxCommit: Sendable {
    public var adding: [(url: String, kind: TrackerQueue.Kind)] = []
    /// When the added pings were owed, wall-clock milliseconds.
    public var addedAt: Int64 = 0
    public var settled: [Int64] = []
    public var rescheduled: [(id: Int64, attempts: Int, dueAt: Int64)] = []
    /// The most pings the outbox may owe after this commit (`trackers.max_owed`): the oldest
    /// beyond it are given up in the same transaction.
    public var maximumOwed = Int.max

    public init() {}

    public var isEmpty: Bool { adding.isEmpty && settled.isEmpty && rescheduled.isEmpty }
}

/// What a commit did: the pings it added, with their ids in order, and how many of the oldest
/// owed pings it gave up to stay within `OutboxCommit.maximumOwed`.
@MemberwiseInit
public struct OutboxCommitted: Sendable {
    public var added: [OwedPing]
    public var givenUp: Int = 0
}

/// Where the tracker queue keeps what it owes, durably: a commit is on disk when `commit`
/// returns, so an answer given after it survives a crash or a power cut.
public protocol TrackerOutbox: Sendable {
    /// Applies `commit` in one transaction.
    func commit(_ commit: OutboxCommit) async throws -> OutboxCommitted
    /// Up to `limit` pings never tried whose id is over `id`, oldest first: the queue takes
    /// them a window at a time.
    func untried(after id: Int64, limit: Int) async throws -> [OwedPing]
    /// How many pings were never tried.
    func untriedCount() async throws -> Int
    /// Up to `limit` pings tried before whose next try is due by `time` (wall-clock ms), the
    /// earliest due first.
    func due(by time: Int64, limit: Int) async throws -> [OwedPing]
    /// When the earliest next try after `time` is due, of the pings tried before; nil if none.
    func nextDue(after time: Int64) async throws -> Int64?
    /// How many pings are owed, and since when the oldest of them is (wall-clock ms).
    func backlog() async throws -> (count: Int, oldest: Int64?)
}
