import SharedTypes

/// The consent strings of a privacy state, decoded: what decisions read, and what
/// `GET /v1/privacy/decoded` shows.
@MemberwiseInit
public struct DecodedConsent: Sendable, Equatable {
    public var tcf: TCString?
    public var gpp: GPPString?
    public var usPrivacy: USPrivacyString?
    public var addtlConsent: AdditionalConsentString? = nil

    /// Decodes every string `state` has; the first that cannot be decoded is the error.
    public init(_ state: PrivacyState) throws(ConsentStringError) {
        tcf = try state.tcfConsent.map { (text) throws(ConsentStringError) in try TCString.decode(text) }
        gpp = try state.gpp.map { (text) throws(ConsentStringError) in try GPPString.decode(text) }
        usPrivacy = try state.usPrivacy.map { (text) throws(ConsentStringError) in try USPrivacyString.decode(text) }
        addtlConsent = try state.addtlConsent.map { (text) throws(ConsentStringError) in
            try AdditionalConsentString.decode(text)
        }
    }

    /// `{"tcf": {...}, "gpp": {"section_ids": [...], "sections": {...}}, "us_privacy": {...},
    /// "addtl_consent": {...}}`, absent parts omitted.
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let tcf { object["tcf"] = tcf.json }
        if let gpp { object["gpp"] = gpp.json }
        if let usPrivacy { object["us_privacy"] = .object(usPrivacy.json) }
        if let addtlConsent { object["addtl_consent"] = addtlConsent.json }
        return .object(object)
    }
}

extension GPPString {
    /// Section ids, and each section's fields under GPP's names by its API name (an undecoded
    /// one under its id, as `{"undecoded": true}`).
    public var json: JSONValue {
        var sections: [String: JSONValue] = [:]
        for section in self.sections {
            guard let name = section.name else {
                sections[String(section.id)] = .object(["undecoded": .bool(true)])
                continue
            }
            sections[name] = .object(section.fields.json)
        }
        return .object(["section_ids": .ids(sectionIDs), "sections": .object(sections)])
    }
}

extension USPrivacyString {
    var json: [String: JSONValue] { fields.json }
}

extension [ConsentField] {
    var json: [String: JSONValue] {
        Dictionary(map { ($0.name, $0.value.json) }, uniquingKeysWith: { first, _ in first })
    }
}
