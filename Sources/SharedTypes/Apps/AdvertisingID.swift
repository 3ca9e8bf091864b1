/// The device's advertising id as a platform hands it to the apps allowed to have it (the IAB's
/// guidelines for IFA on OTT; Firebolt's `{ifa, ifa_type, lmt}`): sent in bid requests as
/// `device.ifa`, `device.ext.ifa_type` and `device.lmt`, and never logged.
@MemberwiseInit
public struct AdvertisingID: Sendable, Equatable {
    /// The id; all zeros while ad tracking is limited.
    public var ifa: String
    public var type: IFAType
    /// Whether the user limited ad tracking (the platform's setting or the app's privacy state).
    public var limitAdTracking: Bool

    /// The id an app whose user limited ad tracking is given: zeros, of the same type.
    public var limited: AdvertisingID {
        AdvertisingID(ifa: Self.zeros, type: type, limitAdTracking: true)
    }

    /// The IFA sent under limit-ad-tracking (a UUID of zeros).
    public static let zeros = "00000000-0000-0000-0000-000000000000"
}

/// Where an advertising id comes from (the IAB's `ifa_type` values).
public enum IFAType: String, Sendable, Codable, CaseIterable {
    /// Device provided: the platform's own id (Roku's RIDA, Tizen's TIFA, LG's LGUDID, ...).
    case dpid
    /// Publisher provided.
    case ppid
    /// Made by a supply-side platform.
    case sspid
    /// A session's id, changed with every session.
    case sessionid

    /// One of the IAB's names; another is refused naming them.
    public init(from decoder: any Decoder) throws {
        self = try StrictJSON.oneOf(decoder)
    }
}
