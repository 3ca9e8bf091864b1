import Consent
import SharedTypes

/// How a load went: every line item tried, in order, and which one filled.
@WireKeys
public struct ResponseInfo: Sendable, Codable, Equatable {
    @WireKeys
    public struct Attempt: Sendable, Codable, Equatable {
        public enum Outcome: String, Sendable, Codable {
            case filled
            case noFill = "no_fill"
            case timeout
            case error
            /// The network failed to set up, or is not known.
            case notReady = "not_ready"
            /// The privacy state in force denies it (the message says why); not asked.
            case consentMissing = "consent_missing"
        }

        public var network: String
        public var parameter: String
        public var outcome: Outcome
        @WireName("latency_ms") public var latencyMilliseconds: Double
        /// Why it did not fill.
        public var message: String?
    }

    public var attempts: [Attempt]
    /// The network that filled, if one did.
    public var network: String?
    /// How the filling request was served, as Google defines the modes.
    public var servingMode: ServingMode?

}
