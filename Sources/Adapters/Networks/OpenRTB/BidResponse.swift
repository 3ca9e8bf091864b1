import SecureSignals
import SharedTypes

/// An OpenRTB 2.x bid response as bidders send it: every field optional except what a bid
/// cannot do without (its price), `adm` a string or, from some bidders, a JSON object.
struct BidResponse: Decodable, Sendable {
    var id: String?
    var seatbid: [SeatBid]?
    var bidid: String?
    var cur: String?
    /// No-bid reason (OpenRTB 2.6 list 5.24).
    var nbr: Int?

    struct SeatBid: Decodable, Sendable {
        var bid: [Bid]
        var seat: String?
    }

    struct Bid: Decodable, Sendable {
        var id: String?
        var impid: String?
        var price: Double
        var nurl: String?
        var burl: String?
        var lurl: String?
        var adm: JSONValue?
        var adid: String?
        var crid: String?
        /// Markup type: 1 banner, 2 video, 3 audio, 4 native.
        var mtype: Int?
        /// Seconds the bidder is willing to wait between the auction and the impression.
        var exp: Int?
        /// The advertiser's domains, content categories and creative attributes.
        var adomain: [String]?
        var cat: [String]?
        var attr: [Int]?
        /// The advertised app's bundle or store id.
        var bundle: String?
    }

    /// What a no-bid reason code means (OpenRTB 2.6 list 5.24).
    static func describe(noBidReason code: Int) -> String {
        let reasons = [
            "unknown error", "technical error", "invalid request", "known web spider", "suspected non-human traffic",
            "cloud, data center or proxy IP", "unsupported device", "blocked publisher or site", "unmatched user",
            "daily reader cap met", "daily domain cap met",
        ]
        return reasons.indices.contains(code) ? "reason \(code) (\(reasons[code]))" : "reason \(code)"
    }
}
