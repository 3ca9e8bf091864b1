import SharedTypes

/// Where the device's advertising id comes from (`advertising_id` in the configuration): the
/// platform's, read when it is asked for and kept a while. Nil while there is none to give (no
/// source, or it cannot be read); a source never throws and never says the id in the log.
public protocol AdvertisingIDSource: Sendable {
    func current() async -> AdvertisingID?
}

extension AdvertisingID {
    /// The id a load's bid requests carry: none unless the app may have it
    /// (`advertising_id`), and zeros (`lmt` 1) when the platform's reading or the app's privacy
    /// state limits ad tracking.
    public static func forLoad(_ id: AdvertisingID?, app: AppIdentity?, limitAdTracking: Bool) -> AdvertisingID? {
        guard let id, let app, app.may(.advertisingID) else { return nil }
        return id.limitAdTracking || limitAdTracking ? id.limited : id
    }
}
