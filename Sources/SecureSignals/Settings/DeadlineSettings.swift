import SharedTypes
import Timing

/// `deadlines` in the configuration: a signals request's, and each adapter's unless its own
/// entry says otherwise.
@Settings
public struct DeadlineSettings: Codable, Sendable {
    @WireName("request_timeout_ms") @Bounds(1...60_000)
    public var requestTimeoutMilliseconds = Int(CollectorConfiguration.standardRequestTimeout.wholeMilliseconds)
    @WireName("adapter_timeout_ms") @Bounds(1...60_000)
    public var adapterTimeoutMilliseconds = Int(AdapterConfiguration.standardTimeout.wholeMilliseconds)
    @WireName("init_timeout_ms") @Bounds(1...600_000)
    public var initTimeoutMilliseconds = Int(AdapterConfiguration.standardInitTimeout.wholeMilliseconds)
    @Bounds(1...(1 << 20)) public var maxSignalBytes = CollectorConfiguration.standardMaxSignalBytes

    public init() {}
}
