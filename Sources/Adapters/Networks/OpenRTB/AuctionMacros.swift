import FoundationEssentials
import Mediation
import SharedTypes
import SignalCrypto

/// The OpenRTB substitution macros (2.6 §4.4) of the winning bid, put into its `nurl`, `burl`,
/// `lurl` and markup, plain or base64url-encoded (`${AUCTION_PRICE:B64}`).
struct AuctionMacros: Sendable {
    var values: [String: String]

    /// `${AUCTION_LOSS}` in a winning bid's `nurl`, `burl` and markup: OpenRTB 2.5 §5.25's
    /// loss reason 0, "Bid Won".
    static let bidWon = 0

    init(
        requestID: String, bid: BidResponse.Bid, bidResponseID: String?, seat: String?, currency: String, loss: Int?,
        minimumToWin: Double? = nil
    ) {
        values = [
            "AUCTION_ID": requestID,
            "AUCTION_BID_ID": bidResponseID ?? "",
            "AUCTION_IMP_ID": bid.impid ?? "",
            "AUCTION_SEAT_ID": seat ?? "",
            "AUCTION_AD_ID": bid.adid ?? "",
            "AUCTION_PRICE": Self.format(bid.price),
            "AUCTION_CURRENCY": currency,
            // Empty when not known: a bidder's notice never carries the macro's own text.
            "AUCTION_MIN_TO_WIN": minimumToWin.map(Self.format) ?? "",
        ]
        if let loss { values["AUCTION_LOSS"] = String(loss) }
    }

    /// These macros as a losing bid's `lurl` needs them: the loss reason, and the price that
    /// would have won (empty when it is not known).
    func lost(_ reason: AuctionLossReason, minimumToWin: Double?) -> AuctionMacros {
        var macros = self
        macros.values["AUCTION_LOSS"] = String(reason.rawValue)
        macros.values["AUCTION_MIN_TO_WIN"] = minimumToWin.map(Self.format) ?? ""
        return macros
    }

    /// Prices as bidders expect them: plain decimals, no exponent.
    static func format(_ price: Double) -> String {
        var text = price.fixed(6)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    func expand(_ text: String) -> String {
        guard text.contains("${") else { return text }
        var result = text
        for (name, value) in values {
            result = result.replacing("${\(name)}", with: value)
            result = result.replacing("${\(name):B64}", with: Base64URL.encode(Array(value.utf8)))
        }
        return result
    }
}
