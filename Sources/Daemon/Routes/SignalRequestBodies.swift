import SharedTypes

/// `POST /v1/signals` body.
struct SignalsRequest: Decodable {
    var requestID: String
    var adapters: [String]?
    var timeoutMilliseconds: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case requestID = "request_id"
        case adapters
        case timeoutMilliseconds = "timeout_ms"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestID = try container.decode(String.self, forKey: .requestID)
        guard (1...256).contains(requestID.utf8.count) else {
            throw StrictJSON.Failure(path: "request_id", reason: "must be 1 to 256 bytes long")
        }
        adapters = try container.decodeIfPresent([String].self, forKey: .adapters)
        timeoutMilliseconds = try container.decodeIfPresent(Int.self, forKey: .timeoutMilliseconds)
        if let timeout = timeoutMilliseconds, !(1...10_000).contains(timeout) {
            throw StrictJSON.Failure(path: "timeout_ms", reason: "must be between 1 and 10000, not \(timeout)")
        }
    }
}

/// `PUT /v1/privacy` body: the privacy state, by its exact keys, refusing any other.
struct StrictPrivacyState: Decodable {
    var state: PrivacyState

    enum CodingKeys: String, CodingKey, CaseIterable {
        case limitAdTracking = "limit_ad_tracking"
        case tcfConsent = "tcf_consent"
        case gpp
        case gppSid = "gpp_sid"
        case usPrivacy = "us_privacy"
        case gdprApplies = "gdpr_applies"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = PrivacyState(
            limitAdTracking: try container.decode(Bool.self, forKey: .limitAdTracking),
            tcfConsent: try container.decodeIfPresent(String.self, forKey: .tcfConsent),
            gpp: try container.decodeIfPresent(String.self, forKey: .gpp),
            gppSid: try container.decodeIfPresent([Int].self, forKey: .gppSid),
            usPrivacy: try container.decodeIfPresent(String.self, forKey: .usPrivacy),
            gdprApplies: try container.decodeIfPresent(Bool.self, forKey: .gdprApplies))
    }
}
