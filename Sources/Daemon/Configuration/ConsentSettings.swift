import Consent
import SharedTypes

/// An adapter's or a line item's `consent`: what it needs from the user's consent (its GVL
/// vendor id, the TCF purposes it needs consent for, those a legitimate interest will do for,
/// the special features it needs, whether it handles an identifier). Without it, the adapter's
/// or network's own default applies.
@WireKeys
struct ConsentSettings: Codable, Sendable, Equatable {
    @WireName("gvl_vendor_id") var vendorID: Int?
    var purposes: [Int] = []
    var legitimateInterestPurposes: [Int] = []
    var specialFeatures: [Int] = []
    var identifier = false

    init(_ requirement: ConsentRequirement) {
        vendorID = requirement.vendorID
        purposes = requirement.purposes
        legitimateInterestPurposes = requirement.legitimateInterestPurposes
        specialFeatures = requirement.specialFeatures
        identifier = requirement.identifier
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func failure(_ key: CodingKeys, _ reason: String) -> StrictJSON.Failure {
            StrictJSON.Failure(path: StrictJSON.keyPath(decoder.codingPath + [key]), reason: reason)
        }
        vendorID = try container.wholeNumber(.vendorID)
        if let vendorID, !(1...65_535).contains(vendorID) {
            throw failure(.vendorID, "must be a Global Vendor List id from 1 to 65535, not \(vendorID)")
        }
        // TCF v2.2: purposes 1-11, special features 1-2; a legitimate interest is never a basis
        // for purpose 1 (storage) nor for 3-6 (personalisation).
        for (key, range, excluded) in [
            (CodingKeys.purposes, 1...11, [Int]()), (.legitimateInterestPurposes, 1...11, [1, 3, 4, 5, 6]),
            (.specialFeatures, 1...2, []),
        ] {
            let ids = try container.decodeIfPresent([Int].self, forKey: key) ?? []
            if let bad = ids.first(where: { !range.contains($0) }) {
                throw failure(key, "\(bad) is not a TCF v2.2 id (\(range.lowerBound)-\(range.upperBound))")
            }
            if let bad = ids.first(where: excluded.contains) {
                throw failure(key, "purpose \(bad) cannot rest on a legitimate interest (TCF v2.2)")
            }
            switch key {
            case .purposes: purposes = ids
            case .legitimateInterestPurposes: legitimateInterestPurposes = ids
            default: specialFeatures = ids
            }
        }
        identifier = try container.decodeIfPresent(Bool.self, forKey: .identifier) ?? false
    }

    var requirement: ConsentRequirement {
        ConsentRequirement(
            vendorID: vendorID, purposes: purposes, legitimateInterestPurposes: legitimateInterestPurposes,
            specialFeatures: specialFeatures, identifier: identifier)
    }
}

extension DaemonConfiguration {
    /// `privacy`: how consent strings are judged.
    @WireKeys
    struct PrivacySettings: Codable, Sendable {
        /// A TC string of an older TCF policy grants nothing (4: TCF v2.2).
        @WireName("min_tcf_policy_version") var minimumTCFPolicyVersion = ConsentPolicy.defaultMinimumTCFPolicyVersion

        init() {}

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            minimumTCFPolicyVersion =
                try container.wholeNumber(.minimumTCFPolicyVersion)
                ?? ConsentPolicy.defaultMinimumTCFPolicyVersion
            guard (2...63).contains(minimumTCFPolicyVersion) else {
                throw StrictJSON.Failure(
                    path: StrictJSON.keyPath(decoder.codingPath + [CodingKeys.minimumTCFPolicyVersion]),
                    reason: "must be a TCF policy version from 2 to 63, not \(minimumTCFPolicyVersion)")
            }
        }
    }
}
