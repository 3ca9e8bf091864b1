import SharedTypes

extension ServingMode {
    /// What personalised ads need under TCF: consent for purposes 1, 3 and 4, and a basis
    /// (consent or legitimate interest) for 2, 7, 9 and 10 ...
    static func personalizedNeeds(vendor: Int?) -> ConsentRequirement {
        ConsentRequirement(vendorID: vendor, purposes: [1, 3, 4], legitimateInterestPurposes: [2, 7, 9, 10])
    }

    /// ... and non-personalised ones: consent for purpose 1, a basis for 2, 7, 9 and 10.
    static func nonPersonalizedNeeds(vendor: Int?) -> ConsentRequirement {
        ConsentRequirement(vendorID: vendor, purposes: [1], legitimateInterestPurposes: [2, 7, 9, 10])
    }
}
