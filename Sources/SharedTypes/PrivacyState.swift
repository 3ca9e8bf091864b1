/// The device's consent state, set by the platform (`PUT /v1/privacy`) and handed to every
/// adapter with each request.
@WireKeys
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

    public init(
        limitAdTracking: Bool, tcfConsent: String? = nil, gpp: String? = nil, gppSid: [Int]? = nil,
        usPrivacy: String? = nil, gdprApplies: Bool? = nil
    ) {
        self.limitAdTracking = limitAdTracking
        self.tcfConsent = tcfConsent
        self.gpp = gpp
        self.gppSid = gppSid
        self.usPrivacy = usPrivacy
        self.gdprApplies = gdprApplies
    }
}
