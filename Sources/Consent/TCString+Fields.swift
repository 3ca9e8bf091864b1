import SharedTypes

extension TCString {
    /// The fields under the GPP specification's names, as its `tcfeuv2` section shows them.
    public var gppFields: [ConsentField] {
        var fields: [ConsentField] = [
            ConsentField("Version", .int(version)), ConsentField("Created", .date(created)),
            ConsentField("LastUpdated", .date(lastUpdated)), ConsentField("CmpId", .int(cmpID)),
            ConsentField("CmpVersion", .int(cmpVersion)), ConsentField("ConsentScreen", .int(consentScreen)),
            ConsentField("ConsentLanguage", .string(consentLanguage)),
            ConsentField("VendorListVersion", .int(vendorListVersion)),
            ConsentField("PolicyVersion", .int(policyVersion)),
            ConsentField("IsServiceSpecific", .bool(isServiceSpecific)),
            ConsentField("UseNonStandardStacks", .bool(useNonStandardTexts)),
            ConsentField("SpecialFeatureOptins", .ids(specialFeatureOptins)),
            ConsentField("PurposeConsents", .ids(purposeConsents)),
            ConsentField("PurposeLegitimateInterests", .ids(purposeLegitimateInterests)),
            ConsentField("PurposeOneTreatment", .bool(purposeOneTreatment)),
            ConsentField("PublisherCountryCode", .string(publisherCC)),
            ConsentField("VendorConsents", .ids(vendorConsents)),
            ConsentField("VendorLegitimateInterests", .ids(vendorLegitimateInterests)),
            ConsentField("PublisherRestrictions", .restrictions(publisherRestrictions)),
        ]
        if let disclosedVendors { fields.append(ConsentField("VendorsDisclosed", .ids(disclosedVendors))) }
        if let allowedVendors { fields.append(ConsentField("VendorsAllowed", .ids(allowedVendors))) }
        if let publisherPurposes {
            fields += [
                ConsentField("PublisherConsents", .ids(publisherPurposes.consents)),
                ConsentField("PublisherLegitimateInterests", .ids(publisherPurposes.legitimateInterests)),
                ConsentField("NumCustomPurposes", .int(publisherPurposes.customCount)),
                ConsentField("PublisherCustomConsents", .ids(publisherPurposes.customConsents)),
                ConsentField("PublisherCustomLegitimateInterests", .ids(publisherPurposes.customLegitimateInterests)),
            ]
        }
        return fields
    }

    /// The decoded view (`GET /v1/privacy/decoded`'s `tcf`): snake_case names, times in epoch
    /// milliseconds, id sets as sorted arrays; an optional segment's fields only when present.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "version": .int(version), "created": .int(created), "last_updated": .int(lastUpdated),
            "cmp_id": .int(cmpID), "cmp_version": .int(cmpVersion), "consent_screen": .int(consentScreen),
            "consent_language": .string(consentLanguage), "vendor_list_version": .int(vendorListVersion),
            "policy_version": .int(policyVersion), "is_service_specific": .bool(isServiceSpecific),
            "use_non_standard_texts": .bool(useNonStandardTexts), "special_feature_optins": .ids(specialFeatureOptins),
            "purpose_consents": .ids(purposeConsents), "purpose_legitimate_interests": .ids(purposeLegitimateInterests),
            "purpose_one_treatment": .bool(purposeOneTreatment), "publisher_cc": .string(publisherCC),
            "vendor_consents": .ids(vendorConsents), "vendor_legitimate_interests": .ids(vendorLegitimateInterests),
            "publisher_restrictions": .array(publisherRestrictions.map(\.json)),
        ]
        if let disclosedVendors { object["disclosed_vendors"] = .ids(disclosedVendors) }
        if let allowedVendors { object["allowed_vendors"] = .ids(allowedVendors) }
        if let publisherPurposes {
            object["publisher_purpose_consents"] = .ids(publisherPurposes.consents)
            object["publisher_purpose_legitimate_interests"] = .ids(publisherPurposes.legitimateInterests)
            object["publisher_custom_purpose_consents"] = .ids(publisherPurposes.customConsents)
            object["publisher_custom_purpose_legitimate_interests"] = .ids(
                publisherPurposes.customLegitimateInterests)
        }
        return .object(object)
    }
}

extension TCString.PublisherRestriction {
    var json: JSONValue {
        .object(["purpose": .int(purpose), "type": .int(kind.rawValue), "vendors": .ids(vendors)])
    }
}

extension JSONValue {
    static func ids(_ ids: [Int]) -> JSONValue { .array(ids.map { .int($0) }) }
}
