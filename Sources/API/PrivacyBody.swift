import SharedTypes

/// `PUT /v1/privacy` and `/v1/device/privacy`: `{"privacy": {...}}` or `{"privacy": null}` (no
/// state, as `DELETE`), the object `GET` answers; unknown keys are refused inside it too.
public struct PrivacyBody: Codable, Sendable, Equatable {
    public var privacy: PrivacyState?

    public init(privacy: PrivacyState?) {
        self.privacy = privacy
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case privacy
    }

    /// Written by hand: the state is the shared `PrivacyState`, which a client reads leniently
    /// in answers; here its keys are checked strictly.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.privacy) else {
            throw DecodingError.keyNotFound(
                CodingKeys.privacy, DecodingError.Context(codingPath: decoder.codingPath, debugDescription: ""))
        }
        guard try !container.decodeNil(forKey: .privacy) else {
            privacy = nil
            return
        }
        let state = try container.superDecoder(forKey: .privacy)
        try state.rejectUnknownKeys(PrivacyState.CodingKeys.self)
        privacy = try PrivacyState(from: state)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(privacy, forKey: .privacy)
    }
}
