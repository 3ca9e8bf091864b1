import SharedTypes

/// How old the TC string in force is allowed to be, and what the decoded view says of it.
extension ConsentPolicy {
    /// When the TC string in force stops being consent (epoch ms): `privacy.max_consent_age_days`
    /// after its LastUpdated. Nil without a TC string.
    public var tcfExpiry: Int64? {
        tcString.map { $0.lastUpdated + Int64(settings.maxConsentAgeDays) * 86_400_000 }
    }

    /// Whether the TC string in force is older than `privacy.max_consent_age_days` at `now`.
    public var tcfExpired: Bool { tcfExpiry.map { now > $0 } ?? false }

    /// `GET /v1/privacy/decoded`: the strings decoded, and for the TC string in force
    /// `tcf_expiry`: where it is from, when it expires and whether it has, at `now`.
    public var decodedView: JSONValue {
        guard case .object(var object) = decoded.json, let expiry = tcfExpiry else { return decoded.json }
        object["tcf_expiry"] = .object([
            "source": .string(decoded.tcf == nil ? "gpp" : "tcf_consent"), "expires_at": .int(expiry),
            "expired": .bool(tcfExpired), "max_age_days": .int(settings.maxConsentAgeDays),
        ])
        return .object(object)
    }
}

extension ConsentPolicy {
    /// Why Google ATP `provider` has no consent in the Additional Consent string; nil when it has.
    func additionalConsentDenial(_ provider: Int) -> String? {
        guard let additional = decoded.addtlConsent else {
            return "Google ATP \(provider) has no consent: no addtl_consent string is set"
        }
        if additional.consentedProviders.contains(provider) { return nil }
        if additional.disclosedProviders?.contains(provider) == true {
            return "Google ATP \(provider) was disclosed to the user but not consented to (addtl_consent)"
        }
        return "Google ATP \(provider) has no consent (addtl_consent)"
    }
}
