import FoundationEssentials
import Mediation
import SecureSignals
import SharedTypes

/// Reads a bidder's answer into the auction's outcome: no-fill with its reason, or the
/// winning bid's markup and notices. Anything unreadable is a `network_error` naming what.
struct BidResponseReader {
    let requestID: String
    let ask: OpenRTBAsk
    let format: AdFormat
    /// The ad unit's blocks: a bid that hits one is dropped before the winner is chosen.
    var quality = AdQuality()
    /// What a bid's markup may hold: a bid over a bound loses with 3 (invalid response).
    var limits = AdContentLimits()
    /// Told of each bid dropped, with why.
    var blocked: @Sendable (AuctionLossReason) -> Void = { _ in }

    /// An auction without a winner: why, the loss notices still owed, and the best bid when
    /// every bid was under the floor or blocked (it keeps its price for `response_info`).
    struct Failure: Error {
        var error: AdLoadError
        var lossNotices: [String] = []
        var passedOver: PassedOverBid?

        init(_ error: AdLoadError, lossNotices: [String] = [], passedOver: PassedOverBid? = nil) {
            self.error = error
            self.lossNotices = lossNotices
            self.passedOver = passedOver
        }
    }

    /// The winner, and what the daemon owes the bidders.
    struct Auction {
        var markup: JSONValue?
        var macros: AuctionMacros
        /// Fired when the ad is chosen; when there is no markup, it serves the markup.
        var winNotice: String?
        /// Fired with the impression.
        var billingNotice: String?
        /// The losing bids' `lurl`s (outbid, 102, or under the floor, 100). Owed once the
        /// winner's ad is known to be usable, or the winner has lost too.
        var lossNotices: [String]
        /// The winner's own `lurl`, its macros not yet filled: sent only if the winner loses in
        /// the ad unit's auction.
        var winnerLossNotice: String?
        /// The winning bid's CPM, in `value`'s currency.
        var price: Double
        /// How long its ad may wait for the impression (`exp`), when the bid says.
        var expiry: Duration?
        var value: AdValue
        /// Who the winning bid is from and what it is for, for the inspector.
        var details: BidDetails
    }

    func read(_ response: AdServerResponse) throws(Failure) -> Auction {
        do {
            return try auction(response)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(error as? AdLoadError ?? AdLoadError(.internalError, "\(error)"))
        }
    }

    private func auction(_ response: AdServerResponse) throws -> Auction {
        if response.status == 204 { throw AdLoadError(.noFill, "the bidder answered 204: no bid") }
        guard (200..<300).contains(response.status) else {
            throw AdLoadError(.networkError, "the bidder answered HTTP \(response.status)")
        }
        if response.body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            throw AdLoadError(.noFill, "the bidder answered an empty body: no bid")
        }
        if let problem = limits.problem(nesting: response.body, "the bid response") {
            throw AdLoadError(.networkError, problem)
        }
        let decoded: BidResponse
        do {
            decoded = try JSONDecoder().decode(BidResponse.self, from: Data(response.body))
        } catch {
            throw AdLoadError(.networkError, "unreadable bid response: \(DecodingFailure(error))")
        }
        let bids = (decoded.seatbid ?? []).flatMap { seat in seat.bid.map { (seat: seat.seat, bid: $0) } }
        guard !bids.isEmpty else {
            if let reason = decoded.nbr {
                throw AdLoadError(.noFill, "no bid: \(BidResponse.describe(noBidReason: reason))")
            }
            throw AdLoadError(.noFill, decoded.seatbid == nil ? "no bid: no seatbid" : "no bid: empty seatbid")
        }
        let currency = decoded.cur?.uppercased() ?? ask.currency
        /// Bid `index`'s `lurl`, told it lost for `reason`; nil when it has none.
        func lossNotice(_ index: Int, _ reason: AuctionLossReason, minimumToWin: Double? = nil) -> String? {
            guard let lurl = bids[index].bid.lurl.flatMap(nonEmpty) else { return nil }
            return AuctionMacros(
                requestID: requestID, bid: bids[index].bid, bidResponseID: decoded.bidid, seat: bids[index].seat,
                currency: currency, loss: reason.rawValue, minimumToWin: minimumToWin
            ).expand(lurl)
        }
        /// A response that cannot be used at all: each bid hears so (3).
        func invalid(_ message: String) -> Failure {
            Failure(
                AdLoadError(.networkError, message),
                lossNotices: bids.indices.compactMap { lossNotice($0, .invalidResponse) })
        }
        // A CPM over a million is no real bid, and would not fit the paid event's micros.
        if let bad = bids.first(where: { !AdValue.isPlausible(cpm: $0.bid.price) }) {
            throw invalid("a bid has an invalid price \(bad.bid.price)")
        }
        guard currency == ask.currency else {
            throw invalid("the bids are in \(currency); the request asked for \(ask.currency)")
        }
        let floor = ask.bidfloor ?? 0
        // A bid for another format (its mtype) cannot serve here, whatever its price.
        let expected = format == .native ? 4 : 2
        let misfits = bids.map { bid in bid.bid.mtype.map { $0 != expected } ?? false }
        guard misfits.contains(false) else {
            let names = [1: "banner", 2: "video", 3: "audio", 4: "native"]
            let types = Set(bids.compactMap(\.bid.mtype)).sorted().map { "mtype \($0) (\(names[$0] ?? "unknown"))" }
            throw Failure(
                AdLoadError(
                    .networkError, "no bid fits a \(format.rawValue) unit: \(types.joined(separator: ", "))"),
                lossNotices: bids.indices.compactMap { lossNotice($0, .incorrectFormat) })
        }
        // A fitting bid whose markup is over the limits: refused (3), whatever its price.
        let oversized = bids.indices.map { index -> String? in
            misfits[index]
                ? nil
                : markupProblem(
                    bids[index].bid.adm,
                    macros: AuctionMacros(
                        requestID: requestID, bid: bids[index].bid, bidResponseID: decoded.bidid,
                        seat: bids[index].seat, currency: currency, loss: AuctionMacros.bidWon))
        }
        // Why a bid cannot win, whatever its price: its format, its markup over the limits, or
        // (for a bid that fits) what the ad unit blocks.
        let exclusions = bids.indices.map { index -> AuctionLossReason? in
            let bid = bids[index].bid
            if misfits[index] { return .incorrectFormat }
            if oversized[index] != nil { return .invalidResponse }
            return quality.exclusion(
                advertiserDomains: bid.adomain, categories: bid.cat, attributes: bid.attr, app: bid.bundle)
        }
        for case let reason? in exclusions where ![.incorrectFormat, .invalidResponse].contains(reason) {
            blocked(reason)
        }
        func lossNotices(winner: Int?) -> [String] {
            bids.indices.compactMap { index in
                guard index != winner else { return nil }
                let reason: AuctionLossReason =
                    exclusions[index] ?? (bids[index].bid.price < floor ? .belowFloor : .outbid)
                let minimum: Double? =
                    switch reason {
                    case .belowFloor: floor
                    case .outbid: winner.map { bids[$0].bid.price }
                    default: nil
                    }
                return lossNotice(index, reason, minimumToWin: minimum)
            }
        }
        // The highest price at or above the floor; the first of equals.
        var winnerIndex: Int?
        for index in bids.indices where exclusions[index] == nil && bids[index].bid.price >= floor {
            if winnerIndex.map({ bids[index].bid.price > bids[$0].bid.price }) ?? true { winnerIndex = index }
        }
        guard let winnerIndex else {
            let fitting = bids.indices.filter { !misfits[$0] }
            // The best fitting bid, told apart for `response_info` when no bid could win.
            let best = fitting.filter { oversized[$0] == nil }.max { bids[$0].bid.price < bids[$1].bid.price }
            func bestPassedOver(_ message: String) -> PassedOverBid? {
                best.map {
                    PassedOverBid(
                        price: bids[$0].bid.price, reason: exclusions[$0] ?? .belowFloor, message: message,
                        details: BidDetails(bids[$0].bid, seat: bids[$0].seat))
                }
            }
            if let problem = oversized.compactMap({ $0 }).first, fitting.allSatisfy({ oversized[$0] != nil }) {
                throw Failure(
                    AdLoadError(.networkError, "every bid was refused: \(problem)"),
                    lossNotices: lossNotices(winner: nil))
            }
            if fitting.allSatisfy({ exclusions[$0] != nil }) {
                let reasons = Set(fitting.compactMap { exclusions[$0].map(Self.describe) }).sorted()
                let passedOver = bids.count - fitting.count
                let others = passedOver == 0 ? "" : "; \(passedOver) passed over for their format"
                let message = "every bid was blocked by the ad unit (\(reasons.joined(separator: ", "))\(others))"
                throw Failure(
                    AdLoadError(.noFill, message), lossNotices: lossNotices(winner: nil),
                    passedOver: bestPassedOver(message))
            }
            let message = "no bid at or above the floor \(AuctionMacros.format(floor)) \(ask.currency)"
            throw Failure(
                AdLoadError(.noFill, message), lossNotices: lossNotices(winner: nil),
                passedOver: bestPassedOver(message))
        }
        let winner = bids[winnerIndex]
        let macros = AuctionMacros(
            requestID: requestID, bid: winner.bid, bidResponseID: decoded.bidid, seat: winner.seat, currency: currency,
            loss: AuctionMacros.bidWon)
        var markup = winner.bid.adm
        if case .string(let text)? = markup, nonEmpty(text) == nil { markup = nil }
        if case .null? = markup { markup = nil }
        guard let value = AdValue(cpm: winner.bid.price, currency: currency, precision: "estimated") else {
            throw AdLoadError(.networkError, "the winning bid has an invalid price \(winner.bid.price)")
        }
        return Auction(
            markup: markup, macros: macros, winNotice: winner.bid.nurl.flatMap(nonEmpty).map(macros.expand),
            billingNotice: winner.bid.burl.flatMap(nonEmpty).map(macros.expand),
            lossNotices: lossNotices(winner: winnerIndex), winnerLossNotice: winner.bid.lurl.flatMap(nonEmpty),
            price: winner.bid.price, expiry: winner.bid.exp.flatMap { $0 > 0 ? .seconds($0) : nil }, value: value,
            details: BidDetails(winner.bid, seat: winner.seat))
    }

    /// Why a bid's markup is refused: more bytes than an ad may hold, or (native) nested too
    /// deep or holding a text or URL over the limits; nil when it fits or is not there yet (a
    /// markup its win notice serves is judged when it comes).
    private func markupProblem(_ markup: JSONValue?, macros: AuctionMacros) -> String? {
        let bytes: Int
        switch markup {
        case .string(let text)?: bytes = text.utf8.count
        case .object?: bytes = 0
        default: return nil
        }
        if bytes > limits.maximumAdBytes {
            return "its adm is \(bytes) bytes, over limits.max_ad_bytes (\(limits.maximumAdBytes))"
        }
        guard format == .native, let markup else { return nil }
        return OpenRTBAdNetwork.limitProblem(markup, macros: macros, limits: limits)
    }

    private static func describe(_ reason: AuctionLossReason) -> String {
        switch reason {
        case .advertiserExcluded: "advertiser"
        case .appExcluded: "app"
        case .categoryExcluded: "category"
        case .creativeAttributeExcluded: "creative attribute"
        default: "\(reason.rawValue)"
        }
    }

    private func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingWhitespace
        return trimmed.isEmpty ? nil : trimmed
    }
}

/// A decoding error told the way a bidder's engineer would want it: where, and what.
struct DecodingFailure: CustomStringConvertible {
    let error: any Error

    init(_ error: any Error) { self.error = error }

    var description: String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.reduce(into: "") { text, key in
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "the document" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.name(of: type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.name(of: type)), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .dataCorrupted(let context):
            // FoundationEssentials' decoder says no more than that (no line, no column).
            return "\(path(context.codingPath)): not valid JSON"
        @unknown default:
            return "\(error)"
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default:
            let name = String(describing: type)
            return name.hasPrefix("Array") ? "a list" : "an object"
        }
    }
}

extension BidDetails {
    /// What `bid`, of `seat`, says of itself.
    init(_ bid: BidResponse.Bid, seat: String?) {
        self.init(seat: seat, bidID: bid.id, creativeID: bid.crid, advertiserDomains: bid.adomain ?? [])
    }
}
