/// What an app may do on the socket API, granted in its registry entry (`apps`).
public enum AppCapability: String, Sendable, Codable, CaseIterable, Comparable {
    /// Ask for secure signals.
    case signals
    /// Load and show ads, and claim its rewards.
    case ads
    /// Have the device's advertising id sent in its bid requests.
    case advertisingID = "advertising_id"
    /// Set the device's privacy state and reset adapters: the platform's settings app.
    case devicePrivacy = "device_privacy"
    /// See every app's ads, events and traces: a developer tool.
    case inspect
    /// Use test-only features (test ads, a source alone).
    case test

    /// What every app may do unless its registry entry says otherwise, and what an unknown
    /// peer's anonymous app may do.
    public static let byDefault: [AppCapability] = [.signals, .ads]

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
