import SharedTypes

/// What a unit's loads, ready ad and retries are kept by: the unit and the app the load is for,
/// and whether it is a test load and of which source. An ad is loaded for one app (its bid
/// requests spoke for it, under its privacy state): it is never handed to another app's load;
/// a test load never joins a real one, nor a real one a test load.
struct LoadKey: Hashable, Sendable {
    var unit: String
    /// The asking app's id; nil for the core alone (tests).
    var app: String?
    var test = false
    /// The one source a test load tries.
    var lineItem: String?

    init(unit: String, app: String?) {
        self.unit = unit
        self.app = app
    }

    init(_ request: AdLoadRequest) {
        self.init(unit: request.adUnit, app: request.app?.id)
        test = request.test
        lineItem = request.lineItem
    }
}
