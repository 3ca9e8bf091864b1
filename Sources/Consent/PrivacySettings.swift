import SharedTypes

/// `privacy` in the configuration: how consent strings are judged.
@Settings
public struct PrivacySettings: Codable, Sendable, Equatable {
    /// A TC string of an older TCF policy grants nothing (4: TCF v2.2).
    @WireName("min_tcf_policy_version") @Bounds(2...63, "a TCF policy version")
    public var minimumTCFPolicyVersion = ConsentPolicy.defaultMinimumTCFPolicyVersion
    /// A TC string last updated longer ago grants nothing: TCF policy asks for consent to be
    /// renewed at least every 13 months, and Google's ad stack refuses an older string.
    @Bounds(1...3650, "a number of days") public var maxConsentAgeDays = 395

    public init() {}
}
