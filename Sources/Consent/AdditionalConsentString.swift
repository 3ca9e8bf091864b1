import SharedTypes

/// Google's Additional Consent string (`addtl_consent`), decoded: the Google Ad Tech Providers
/// (ATPs, not on the IAB's vendor list) the user consented to and, from version 2, those only
/// disclosed to them. Version 1 is `1~1.35.41`; version 2 is `2~1.35.41.101~dv.9.21.81` (the
/// consented ids, then after `dv.` the disclosed ones; either list may be empty). Ids are
/// positive integers separated by dots; anything else is refused.
public struct AdditionalConsentString: Sendable, Equatable {
    public var version: Int
    /// The consented providers' ids, sorted.
    public var consentedProviders: [Int]
    /// The providers disclosed but not consented to, sorted; nil in a version 1 string.
    public var disclosedProviders: [Int]?

    /// The largest id taken: nine digits, far above any ATP id, so that no id overflows.
    public static let maximumID = 999_999_999

    public static func decode(_ text: String) throws(ConsentStringError) -> AdditionalConsentString {
        let parts = text.split(separator: "~", omittingEmptySubsequences: false)
        switch parts.first {
        case "1":
            guard parts.count == 2 else { throw refusal("a version 1 string has 2 parts (1~ids), not \(parts.count)") }
            return AdditionalConsentString(
                version: 1, consentedProviders: try ids(parts[1], "consented ids"), disclosedProviders: nil)
        case "2":
            guard parts.count == 3 else {
                throw refusal("a version 2 string has 3 parts (2~ids~dv.ids), not \(parts.count)")
            }
            guard parts[2].hasPrefix("dv.") else { throw refusal("its third part does not begin with dv.") }
            return AdditionalConsentString(
                version: 2, consentedProviders: try ids(parts[1], "consented ids"),
                disclosedProviders: try ids(parts[2].dropFirst(3), "disclosed ids"))
        default:
            throw refusal("has no version 1 or 2 before its first ~")
        }
    }

    /// A dot-separated list of ids, possibly empty.
    private static func ids(_ list: Substring, _ field: String) throws(ConsentStringError) -> [Int] {
        guard !list.isEmpty else { return [] }
        var ids = Set<Int>()
        for (index, item) in list.split(separator: ".", omittingEmptySubsequences: false).enumerated() {
            guard !item.isEmpty, item.count <= 9, item.allSatisfy({ $0.isASCII && $0.isNumber }), let id = Int(item),
                id >= 1
            else {
                throw refusal("\(field): item \(index + 1) is not an id from 1 to \(maximumID)")
            }
            ids.insert(id)
        }
        return ids.sorted()
    }

    private static func refusal(_ reason: String) -> ConsentStringError {
        ConsentStringError(.addtlConsent, reason)
    }

    /// The decoded view (`GET /v1/privacy/decoded`'s `addtl_consent`).
    public var json: JSONValue {
        var object: [String: JSONValue] = ["version": .int(version), "consented_providers": .ids(consentedProviders)]
        if let disclosedProviders { object["disclosed_providers"] = .ids(disclosedProviders) }
        return .object(object)
    }
}
