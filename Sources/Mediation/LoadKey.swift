import SharedTypes

/// What a unit's loads, ready ad and retries are kept by: the unit and the app the load is for.
/// An ad is loaded for one app (its bid requests spoke for it, under its privacy state): it is
/// never handed to another app's load.
struct LoadKey: Hashable, Sendable {
    var unit: String
    /// The asking app's id; nil for the core alone (tests).
    var app: String?

    init(unit: String, app: String?) {
        self.unit = unit
        self.app = app
    }

    init(_ request: AdLoadRequest) {
        self.init(unit: request.adUnit, app: request.app?.id)
    }
}
