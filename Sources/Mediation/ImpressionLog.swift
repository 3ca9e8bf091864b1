import SharedTypes

/// One impression of a unit that has frequency caps or pacing: which app saw it (nil for the
/// core alone), and when (wall-clock ms).
@MemberwiseInit
public struct CappedImpression: Sendable, Equatable {
    public var adUnit: String
    public var app: String?
    public var at: Int64
}

/// Where the impressions that frequency caps count are kept, durably, so that a restart does
/// not reset a cap: `record` returns once the impression is on disk.
public protocol ImpressionLog: Sendable {
    /// Stores `impression`, and forgets that app's impressions of the unit before `horizon`
    /// (wall-clock ms): they no longer count.
    func record(_ impression: CappedImpression, forgettingBefore horizon: Int64) async throws
    /// Forgets every impression before `since` (wall-clock ms), which no unit's caps count any
    /// more; answers the others, oldest first: the counts a starting or reloaded daemon takes up.
    func impressions(since: Int64) async throws -> [CappedImpression]
}
