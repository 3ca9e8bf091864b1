import SharedTypes

/// `POST /v1/signals` body.
@WireKeys
struct SignalsRequest: Decodable {
    var requestID: String
    var adapters: [String]?
    @WireName("timeout_ms") var timeoutMilliseconds: Int?

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestID = try container.decode(String.self, forKey: .requestID)
        guard (1...256).contains(requestID.utf8.count) else {
            throw StrictJSON.Failure(path: "request_id", reason: "must be 1 to 256 bytes long")
        }
        adapters = try container.decodeIfPresent([String].self, forKey: .adapters)
        timeoutMilliseconds = try container.wholeNumber(.timeoutMilliseconds)
        if let timeout = timeoutMilliseconds, !(1...10_000).contains(timeout) {
            throw StrictJSON.Failure(path: "timeout_ms", reason: "must be between 1 and 10000, not \(timeout)")
        }
    }
}

/// `PUT /v1/privacy` body: `{"privacy": {...}}`, the object `GET /v1/privacy` answers, refusing
/// unknown fields (`DELETE` clears the state).
@WireKeys
struct PrivacyBody: Decodable {
    var privacy: StrictPrivacyState

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        privacy = try container.decode(StrictPrivacyState.self, forKey: .privacy)
    }
}

/// The privacy state inside `PrivacyBody`, refusing unknown fields.
struct StrictPrivacyState: Decodable {
    var state: PrivacyState

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(PrivacyState.CodingKeys.self)
        state = try PrivacyState(from: decoder)
    }
}
