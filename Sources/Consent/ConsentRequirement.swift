import SharedTypes

/// What an adapter or ad network needs from the user's consent before it may run: its vendor id
/// in the IAB's Global Vendor List, the TCF purposes it needs consent for, those for which a
/// legitimate interest will do, the special features it needs an opt-in for, whether it
/// handles an identifier of the user or device, and its Google Ad Tech Provider id, if any.
@MemberwiseInit
public struct ConsentRequirement: Sendable, Equatable {
    public var vendorID: Int?
    /// Purposes that need the user's consent.
    public var purposes: [Int] = []
    /// Purposes for which consent or, where TCF v2.2 allows it (never purposes 1 and 3-6), a
    /// legitimate interest is a basis.
    public var legitimateInterestPurposes: [Int] = []
    public var specialFeatures: [Int] = []
    public var identifier: Bool = false
    /// Its id in Google's Ad Tech Providers list: where the GDPR applies, it needs that
    /// provider's consent in the Additional Consent string (`addtl_consent`).
    public var googleATPID: Int? = nil

    /// Needs nothing: allowed whatever the privacy state, even none.
    public static let none = ConsentRequirement()

    /// Whether it asks anything of the privacy state.
    public var needsConsent: Bool {
        identifier || !purposes.isEmpty || !legitimateInterestPurposes.isEmpty || !specialFeatures.isEmpty
            || googleATPID != nil
    }
}

/// Whether something may run under the privacy state in force, and if not, why (the message
/// of its `consent_missing`, e.g. "TCF: vendor 755 has no consent for purpose 1").
public enum ConsentDecision: Sendable, Equatable {
    case allowed
    case denied(String)

    public var isAllowed: Bool { self == .allowed }

    /// Why it is denied; nil when allowed.
    public var reason: String? {
        if case .denied(let reason) = self { reason } else { nil }
    }
}
