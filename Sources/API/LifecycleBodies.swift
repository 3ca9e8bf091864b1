import SharedTypes

/// `POST /v1/ads/{id}/click`: which asset was clicked, when the app says.
@Settings
public struct ClickBody: Codable, Sendable, Equatable {
    public var asset: String?

    public init(asset: String? = nil) {
        self.asset = asset
    }
}

/// `POST /v1/ads/{id}/progress`: how far a rewarded video played.
@Settings
public struct ProgressBody: Codable, Sendable, Equatable {
    public var event: VideoProgress

    public init(event: VideoProgress) {
        self.event = event
    }
}

/// `POST /v1/ads/{id}/error`: `{"code": 405}`, a VAST error code from 100 to 999.
@Settings
public struct PlaybackErrorBody: Codable, Sendable, Equatable {
    public var code: Int

    public init(code: Int) {
        self.code = code
    }

    public func validate(at codingPath: [any CodingKey]) throws {
        guard (100...999).contains(code) else {
            throw StrictJSON.Failure(
                at: codingPath, CodingKeys.code, "must be a VAST error code, 100 to 999, not \(code)")
        }
    }
}
