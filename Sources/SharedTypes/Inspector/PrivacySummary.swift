/// What a trace says of the privacy state a request was decided under: which signals were
/// present and the serving mode, never the strings themselves.
@WireKeys
@MemberwiseInit
public struct PrivacySummary: Sendable, Codable, Equatable {
    /// Whether any state was in force (the app's or the device's).
    public var set: Bool
    public var gdprApplies: Bool?
    /// Whether a TC string was present.
    public var tcf: Bool
    /// The GPP sections present (`gpp_sid`).
    public var gppSections: [Int]
    public var usPrivacy: Bool
    public var limitAdTracking: Bool
    public var gpc: Bool
    public var coppa: Bool
    /// The serving mode the state allows a vendor with no TCF id.
    public var servingMode: ServingMode
}
