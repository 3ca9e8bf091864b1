import SharedTypes

/// `GET` and `PUT /v1/privacy`.
struct PrivacyAnswer: Encodable {
    /// Null until the platform sets one: no consent.
    var privacy: PrivacyState?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(privacy, forKey: .privacy)
    }

    enum CodingKeys: String, CodingKey { case privacy }
}

struct Health: Encodable {
    var status: String
    var adapters: [String: Int]
    var uptimeSeconds: Double
    var version: String

    enum CodingKeys: String, CodingKey {
        case status, adapters, version
        case uptimeSeconds = "uptime_s"
    }
}
