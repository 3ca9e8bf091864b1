/// The device's consent state, set by the platform (`PUT /v1/privacy`) and handed to every
/// adapter with each request.
@WireKeys
@MemberwiseInit
public struct PrivacyState: Sendable, Equatable, Codable {
    public var limitAdTracking: Bool
    /// IAB TCF consent string.
    public var tcfConsent: String?
    /// IAB Global Privacy Platform string and its section ids.
    public var gpp: String?
    public var gppSid: [Int]?
    /// IAB US Privacy (CCPA) string.
    public var usPrivacy: String?
    /// Whether the GDPR applies to this device (OpenRTB's `regs.gdpr`); nil when unknown.
    public var gdprApplies: Bool?
}
