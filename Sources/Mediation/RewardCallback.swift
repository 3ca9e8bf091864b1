import SharedTypes

/// Makes the server-side-verification (SSV) callback of a reward: the ad unit's callback URL
/// with the reward's parameters, signed. The daemon's signs with its ECDSA key; the URL then
/// goes through the tracker outbox, so it is sent at least once, across restarts.
public protocol RewardCallbackSigner: Sendable {
    /// `base` with the reward's query parameters and their signature; nil when it cannot be
    /// signed (the failure is logged by the signer).
    func callbackURL(_ base: String, for reward: EarnedReward, adNetwork: String) -> String?
}
