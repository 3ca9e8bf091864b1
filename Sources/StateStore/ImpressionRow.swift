import GRDB
import Mediation

/// A row of `capped_impressions`: one impression a unit's frequency caps count.
struct ImpressionRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "capped_impressions"

    var adUnit: String
    var uid: Int64?
    var at: Int64

    enum CodingKeys: String, CodingKey {
        case adUnit = "ad_unit"
        case uid
        case at = "at_ms"
    }

    init(_ impression: CappedImpression) {
        adUnit = impression.adUnit
        uid = impression.uid.map(Int64.init)
        at = impression.at
    }

    var impression: CappedImpression {
        CappedImpression(adUnit: adUnit, uid: uid.flatMap(UInt32.init(exactly:)), at: at)
    }
}
