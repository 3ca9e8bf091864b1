import SharedTypes

/// `POST /v1/signals`: which request asks (an id the caller chooses), which adapters (all when
/// absent), and how long it may take (the configured deadline when absent).
@Settings
public struct SignalsBody: Codable, Sendable, Equatable {
    public var requestID: String
    public var adapters: [String]?
    @WireName("timeout_ms") @Bounds(1...10_000) public var timeoutMilliseconds: Int?

    public init(requestID: String, adapters: [String]? = nil, timeoutMilliseconds: Int? = nil) {
        self.requestID = requestID
        self.adapters = adapters
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    public func validate(at codingPath: [any CodingKey]) throws {
        guard (1...256).contains(requestID.utf8.count) else {
            throw StrictJSON.Failure(at: codingPath, CodingKeys.requestID, "must be 1 to 256 bytes long")
        }
    }
}
