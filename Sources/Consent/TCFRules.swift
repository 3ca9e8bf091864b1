import SharedTypes

/// The rules a TC string must meet to be a TC string at all, whatever the policy in force
/// (each refusal names its rule; `Tests/Fixtures/consent/2026/tcf-v23.json` quotes the
/// sources): `IsServiceSpecific` is 1 (TCF v2 specification, since 2021); a string created
/// after 2023-09-30 has policy version 4 or later (TCF v2.2); one created after 2026-02-28
/// carries a DisclosedVendors segment (TCF v2.3); neither date is more than a day ahead of now.
public enum TCFRules {
    /// 2023-10-01T00:00:00Z: from then on a policy version below 4 is invalid.
    public static let policyVersion4Since: Int64 = 1_696_118_400_000
    /// 2026-03-01T00:00:00Z: from then on the DisclosedVendors segment is mandatory.
    public static let disclosedVendorsSince: Int64 = 1_772_323_200_000
    /// How far ahead of the daemon's clock a date may be (a day: clocks and time zones differ).
    public static let futureTolerance: Int64 = 86_400_000

    /// `now` when it can judge a date ahead of it: a wall clock before 2026-03-01 has not been
    /// set yet (a device that booted before its time sync), and refusing every string "dated in
    /// the future" until it is would refuse all consent.
    public static func trusted(_ now: Int64) -> Int64? {
        now >= disclosedVendorsSince ? now : nil
    }

    /// Why `tc` is not a valid TC string at `now` (epoch ms); nil when it is. With no `now` (a
    /// clock not to be trusted, or a kept state restored) dates are not judged against it.
    public static func violation(of tc: TCString, at now: Int64?) -> String? {
        guard tc.isServiceSpecific else {
            return "IsServiceSpecific is 0; a TC string must be service-specific (TCF v2: it must always be 1)"
        }
        if tc.created >= policyVersion4Since, tc.policyVersion < 4 {
            return
                "created \(day(tc.created)) with policy version \(tc.policyVersion); one created after 2023-09-30 needs 4 or later (TCF v2.2)"
        }
        if tc.created >= disclosedVendorsSince, tc.disclosedVendors == nil {
            return
                "created \(day(tc.created)) without a DisclosedVendors segment, which TCF v2.3 makes mandatory for strings created after 2026-02-28"
        }
        guard let now else { return nil }
        for (name, date) in [("Created", tc.created), ("LastUpdated", tc.lastUpdated)]
        where date > now + futureTolerance {
            return "\(name) is \(day(date)), more than a day in the future"
        }
        return nil
    }

    /// `milliseconds` as its UTC day, `2026-03-01`.
    static func day(_ milliseconds: Int64) -> String {
        guard case .string(let iso) = ConsentField.Value.date(milliseconds).json else { return "\(milliseconds)" }
        return String(iso.prefix(10))
    }
}

extension DecodedConsent {
    /// Decodes every string of `state` and checks its TC strings against the rules at `now`:
    /// what a privacy state must pass to be taken.
    public init(_ state: PrivacyState, at now: Int64) throws(ConsentStringError) {
        try self.init(state)
        try validate(at: TCFRules.trusted(now))
    }

    /// Fails with the first TC string (`tcf_consent`, then GPP's `tcfeuv2`) that breaks a rule
    /// of `TCFRules` at `now` (nil: the rules that need no clock).
    public func validate(at now: Int64?) throws(ConsentStringError) {
        if let tcf, let reason = TCFRules.violation(of: tcf, at: now) {
            throw ConsentStringError(.tcfConsent, reason)
        }
        if let tcf = gpp?.section(2)?.tcf, let reason = TCFRules.violation(of: tcf, at: now) {
            throw ConsentStringError(.gpp, section: "tcfeuv2", reason)
        }
    }
}
