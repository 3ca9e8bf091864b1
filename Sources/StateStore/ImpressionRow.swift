import GRDB
import Mediation

/// A row of `capped_impressions`: one impression a unit's frequency caps count.
struct ImpressionRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "capped_impressions"

    var adUnit: String
    var app: String?
    var at: Int64

    enum CodingKeys: String, CodingKey {
        case adUnit = "ad_unit"
        case app
        case at = "at_ms"
    }

    init(_ impression: CappedImpression) {
        adUnit = impression.adUnit
        app = impression.app
        at = impression.at
    }

    var impression: CappedImpression {
        CappedImpression(adUnit: adUnit, app: app, at: at)
    }
}
