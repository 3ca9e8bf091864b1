/// A privacy state: an app's own (`PUT /v1/privacy`), the device's (`PUT /v1/device/privacy`,
/// the platform's), or the one in force for a request (the app's, with the device's as its
/// default), handed to every adapter and network with each request.
@WireKeys
@MemberwiseInit
public struct PrivacyState: Sendable, Hashable, Codable {
    public var limitAdTracking: Bool
    /// IAB TCF consent string.
    public var tcfConsent: String?
    /// Google's Additional Consent string (`2~1.35~dv.9.21`): the Google ad technology
    /// providers outside the IAB's vendor list the user consented to.
    public var addtlConsent: String? = nil
    /// IAB Global Privacy Platform string and its section ids.
    public var gpp: String?
    public var gppSid: [Int]?
    /// IAB US Privacy (CCPA) string.
    public var usPrivacy: String?
    /// Whether the GDPR applies to this device (OpenRTB's `regs.gdpr`); nil when unknown.
    public var gdprApplies: Bool?
    /// Whether the user sent a Global Privacy Control signal: the device's alone.
    public var gpc: Bool? = nil
    /// Whether the device is directed to children under 13 (COPPA, OpenRTB's `regs.coppa`):
    /// the device's alone.
    public var coppa: Bool? = nil
}
