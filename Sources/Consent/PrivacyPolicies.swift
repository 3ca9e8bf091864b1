import SharedTypes

/// The privacy decisions in force for every app: each app that set its own state has its
/// policy (its state with the device's as default, `PrivacyState.inForce`), and every other app
/// stands under the device's (`standing`). Made by the privacy keeper at each change, read by
/// the collector and the ad store for each request.
public struct PrivacyPolicies: Sendable {
    /// The policy of an app that set no state of its own: the device's.
    public var standing: ConsentPolicy
    /// The policies of the apps that set their own state, by app id.
    public var apps: [String: ConsentPolicy]

    public init(standing: ConsentPolicy, apps: [String: ConsentPolicy] = [:]) {
        self.standing = standing
        self.apps = apps
    }

    /// No state anywhere: no consent.
    public static let unset = PrivacyPolicies(standing: .unset)

    /// The policy app `id` is served under (nil: the standing one), judged at `now` (epoch ms,
    /// the asker's wall clock): a TC string's age depends on it.
    public func policy(for id: String?, at now: Int64) -> ConsentPolicy {
        (id.flatMap { apps[$0] } ?? standing).at(now)
    }

    /// Whether app `id`'s decisions at `now` differ between `self` and `other`.
    public func changed(for id: String?, from other: PrivacyPolicies, at now: Int64) -> Bool {
        !policy(for: id, at: now).decidesAlike(other.policy(for: id, at: now))
    }
}

extension ConsentPolicy {
    /// Whether `other` is made of the same state under the same settings, its TC string expired
    /// alike: then both decide everything alike.
    public func decidesAlike(_ other: ConsentPolicy) -> Bool {
        state == other.state && settings == other.settings && tcfExpired == other.tcfExpired
    }
}
