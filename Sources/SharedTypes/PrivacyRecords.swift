/// Whose privacy state: the device's (the platform's, `PUT /v1/device/privacy`) or one app's
/// own, by its app id (`tv.example.news`, a store id, `uid:1000`).
public enum PrivacyScope: Sendable, Hashable {
    case device
    case app(String)
}

/// The privacy states kept across restarts: the device's, if it has one, and each app's own.
@MemberwiseInit
public struct StoredPrivacy: Sendable, Equatable {
    public var device: PrivacyState? = nil
    /// Each app's own state, by app id.
    public var apps: [String: PrivacyState] = [:]
    /// The kept states that could not be read, each with why (written by a newer daemon with
    /// keys this one does not know, or damaged): they are absent above, so their scope has no
    /// state of its own until one is set again, which replaces what was kept. They are left
    /// as they are, never deleted, for the caller to log; a newer daemon reads them again.
    public var unreadable: [PrivacyScope: String] = [:]
}

/// Where the privacy states are kept, durably: the daemon reads them all at start and sets
/// each as it changes.
public protocol PrivacyRecords: Sendable {
    /// Every kept state. An unreadable one does not stop the others from loading: it is
    /// reported in `StoredPrivacy.unreadable`. Throws only when nothing can be read.
    func all() async throws -> StoredPrivacy

    /// Keeps `state` as `scope`'s, replacing what it had; nil deletes it. Returns once the
    /// change is durable: it survives the daemon's crash and a power cut.
    func set(_ state: PrivacyState?, for scope: PrivacyScope) async throws
}
