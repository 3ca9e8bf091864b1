import SharedTypes

/// `privacy` in the configuration: how consent strings are judged.
@Settings
public struct PrivacySettings: Codable, Sendable {
    /// A TC string of an older TCF policy grants nothing (4: TCF v2.2).
    @WireName("min_tcf_policy_version") @Bounds(2...63, "a TCF policy version")
    public var minimumTCFPolicyVersion = ConsentPolicy.defaultMinimumTCFPolicyVersion

    public init() {}
}
