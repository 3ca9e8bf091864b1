extension PrivacyState {
    /// The state in force for an app: its own (`own`), with the device's as its default. An app
    /// that set none stands under the device's. The device's limit-ad-tracking, GPC and COPPA
    /// always apply, and so does its word that the GDPR applies: an app can add its user's
    /// limit, never lift the device's.
    public static func inForce(own: PrivacyState?, device: PrivacyState?) -> PrivacyState? {
        guard var state = own else { return device }
        guard let device else { return state }
        state.limitAdTracking = state.limitAdTracking || device.limitAdTracking
        state.gpc = device.gpc
        state.coppa = device.coppa
        if state.gdprApplies == nil || device.gdprApplies == true { state.gdprApplies = device.gdprApplies }
        return state
    }

    /// What only the device's state may say (`gpc`, `coppa`), by key: an app's state that says
    /// it is refused.
    public var deviceOnlyKeys: [String] {
        [gpc.map { _ in "gpc" }, coppa.map { _ in "coppa" }].compactMap { $0 }
    }
}
