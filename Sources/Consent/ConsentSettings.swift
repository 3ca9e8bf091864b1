import SharedTypes

/// An adapter's or a line item's `consent`: what it needs from the user's consent (its GVL
/// vendor id, the TCF purposes it needs consent for, those a legitimate interest will do for,
/// the special features it needs, whether it handles an identifier, its Google ATP id). Without
/// it, the adapter's or network's own default applies.
@Settings
public struct ConsentSettings: Codable, Sendable, Equatable {
    @WireName("gvl_vendor_id") @Bounds(1...65_535, "a Global Vendor List id") public var vendorID: Int?
    // TCF v2.2: purposes 1-11, special features 1-2.
    @Bounds(1...11, "a TCF v2.2 id") public var purposes: [Int] = []
    @Bounds(1...11, "a TCF v2.2 id") public var legitimateInterestPurposes: [Int] = []
    @Bounds(1...2, "a TCF v2.2 id") public var specialFeatures: [Int] = []
    public var identifier = false
    @WireName("google_atp_id") @Bounds(1...AdditionalConsentString.maximumID, "a Google ATP id")
    public var googleATPID: Int?

    public init(_ requirement: ConsentRequirement) {
        vendorID = requirement.vendorID
        purposes = requirement.purposes
        legitimateInterestPurposes = requirement.legitimateInterestPurposes
        specialFeatures = requirement.specialFeatures
        identifier = requirement.identifier
        googleATPID = requirement.googleATPID
    }

    /// A legitimate interest is never a basis for purpose 1 (storage) nor for 3-6 (personalisation).
    public func validate(at codingPath: [any CodingKey]) throws {
        if let bad = legitimateInterestPurposes.first(where: [1, 3, 4, 5, 6].contains) {
            throw StrictJSON.Failure(
                at: codingPath, CodingKeys.legitimateInterestPurposes,
                "purpose \(bad) cannot rest on a legitimate interest (TCF v2.2)")
        }
    }

    public var requirement: ConsentRequirement {
        ConsentRequirement(
            vendorID: vendorID, purposes: purposes, legitimateInterestPurposes: legitimateInterestPurposes,
            specialFeatures: specialFeatures, identifier: identifier, googleATPID: googleATPID)
    }
}
