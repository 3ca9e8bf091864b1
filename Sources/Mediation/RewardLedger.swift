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
/// `record` is synchronous, and the ad store calls it before it publishes `reward_earned`: a
/// reward is rare (one per rewarded ad watched), and committing it in line keeps the event
/// order (the reward before the dismiss) without a second mechanism, for one sync to disk.
public protocol RewardLedger: Sendable {
    /// Stores `reward`, and `callback` as an owed `ssv` ping beside it; answers that ping.
    func record(_ reward: EarnedReward, callback: String?) throws -> OwedPing?
    /// The rewards of app `app` (every app's when nil: one with `inspect`) still kept at `now`
    /// (wall-clock ms), oldest first.
    func rewards(app: String?, state: RewardState, now: Int64) async throws -> [EarnedReward]
    /// Marks one of app `app`'s rewards (any, when nil) still kept claimed at `now` (wall-clock ms).
    func claim(_ transactionID: String, app: String?, now: Int64) async throws -> RewardClaim
}
