/// What a bidder finds inside an envelope after opening it.
@WireKeys
@MemberwiseInit
public struct SignalPayload: Sendable, Codable, Equatable {
    public var v: Int
    public var adapter: String
    public var adapterVersion: SemanticVersion
    public var sdkVersion: SemanticVersion
    public var requestID: String
    @WireName("issued_at_ms") public var issuedAtMilliseconds: Int64
    /// Base64 of the raw signal.
    public var signal: String
}
