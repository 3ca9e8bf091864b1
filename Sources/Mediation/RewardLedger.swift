import SharedTypes

/// Which rewards a listing shows.
public enum RewardState: String, Sendable, CaseIterable {
    case unclaimed, claimed, all
}

/// What a claim did.
public enum RewardClaim: Sendable, Equatable {
    /// Claimed now.
    case claimed(EarnedReward)
    /// Claimed before; the reward as it was claimed.
    case alreadyClaimed(EarnedReward)
    /// No such reward that this app may see.
    case notFound
}

/// Where earned rewards are kept, durably: `record` returns once the reward (and its SSV
/// callback, owed in the same transaction) is on disk.
///
/// The ad store awaits `record` before it publishes `reward_earned`, and holds the ad's other
/// presentation calls until it returns: the event order (the reward before the dismiss) is
/// kept, and no other ad waits for the sync to disk.
public protocol RewardLedger: Sendable {
    /// Stores `reward`, and `callback` as an owed `ssv` ping beside it; answers that ping.
    func record(_ reward: EarnedReward, callback: String?) async throws -> OwedPing?
    /// The rewards of app `app` (every app's when nil: one with `inspect`) still kept at `now`
    /// (wall-clock ms), oldest first.
    func rewards(app: String?, state: RewardState, now: Int64) async throws -> [EarnedReward]
    /// Marks one of app `app`'s rewards (any, when nil) still kept claimed at `now` (wall-clock ms).
    func claim(_ transactionID: String, app: String?, now: Int64) async throws -> RewardClaim
}
