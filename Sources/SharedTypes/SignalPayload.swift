/// What a bidder finds inside an envelope after opening it.
@WireKeys
public struct SignalPayload: Sendable, Codable, Equatable {
    public var v: Int
    public var adapter: String
    public var adapterVersion: SemanticVersion
    public var sdkVersion: SemanticVersion
    public var requestID: String
    @WireName("issued_at_ms") public var issuedAtMilliseconds: Int64
    /// Base64 of the raw signal.
    public var signal: String

    public init(
        v: Int, adapter: String, adapterVersion: SemanticVersion, sdkVersion: SemanticVersion, requestID: String,
        issuedAtMilliseconds: Int64, signal: String
    ) {
        self.v = v
        self.adapter = adapter
        self.adapterVersion = adapterVersion
        self.sdkVersion = sdkVersion
        self.requestID = requestID
        self.issuedAtMilliseconds = issuedAtMilliseconds
        self.signal = signal
    }
}
