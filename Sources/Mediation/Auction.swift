import Consent
import SharedTypes
import Timing

/// An ad unit's bidders asked at once when a load starts, each within the unit's auction time
/// (on `clock`, the store's); the bids at or above the floor, best first, and what every bidder
/// answered. A bid under the floor is settled as lost here; every other bid is settled by the
/// waterfall or the store.
struct Auction {
    /// A bid that may serve: its bidder's line item and its place in the unit.
    struct Entry: Sendable {
        var index: Int
        var item: LineItem
        var bid: NetworkBid
        var tracksItself: Bool
        var servingMode: ServingMode
        var latency: Duration
    }

    let unit: AdUnit
    let networks: [String: NetworkHost]
    /// Where the bids are settled.
    let ledger: BidLedger
    /// What the bidders' time and latencies are counted on.
    let clock: any Clock<Duration>

    /// `notices`: where the load's trace notes each bidder's notices.
    func run(_ request: AdLoadRequest, decisions: LineItemDecisions, notices: NoticeLog? = nil) async -> (
        entries: [Entry], bids: [BidderTrace]
    ) {
        let elapsed = clock.stopwatch()
        let answers = await withTaskGroup(of: (Int, Answer).self) { group in
            for (index, item) in unit.bidders.enumerated() {
                let decision = decisions.decision(unit: unit.id, bidder: index)
                let privacy = decisions.privacy
                group.addTask {
                    let answer = await ask(
                        item, decision: decision, privacy: privacy, request: request,
                        notices: notices.map {
                            NoticeLog.Source(log: $0, network: item.network, parameter: item.shownParameter)
                        },
                        elapsed: elapsed)
                    return (index, answer)
                }
            }
            var answers: [Int: Answer] = [:]
            for await (index, answer) in group { answers[index] = answer }
            return answers
        }
        var entries: [Entry] = []
        var bids: [BidderTrace] = []
        for (index, item) in unit.bidders.enumerated() {
            let answer = answers[index] ?? Answer(outcome: .failed(.error, "no answer"), start: .zero, end: .zero)
            var record = BidderTrace(
                network: item.network, parameter: item.shownParameter, startMilliseconds: milliseconds(answer.start),
                latencyMilliseconds: milliseconds(answer.end - answer.start),
                timeMilliseconds: answer.time.map(milliseconds), outcome: .noBid)
            switch answer.outcome {
            case .bid(let bid, let tracksItself, let servingMode):
                record.price = bid.price
                record.currency = bid.currency
                record.bid = bid.details
                if let floor = unit.floorCPM, bid.price < floor {
                    ledger.settle(bid.owed, .lost(.belowFloor, minimumToWin: floor))
                    record.outcome = .lost
                    record.lossReason = .belowFloor
                    record.message = "under the floor \(floor)"
                } else {
                    entries.append(
                        Entry(
                            index: index, item: item, bid: bid, tracksItself: tracksItself, servingMode: servingMode,
                            latency: answer.end - answer.start))
                }
            case .failed(let outcome, let message):
                record.outcome = outcome
                record.message = message
            case .invalid(let bid, let message):
                // What it said is kept to see why; a price JSON cannot carry (NaN, infinite) is not.
                record.price = bid.price.isFinite ? bid.price : nil
                record.currency = bid.currency
                record.bid = bid.details
                record.outcome = .error
                record.lossReason = .invalidResponse
                record.message = message
            case .passedOver(let bid):
                record.price = bid.price
                record.currency = unit.currency
                record.bid = bid.details
                record.outcome = .lost
                record.lossReason = bid.reason
                record.message = bid.message
            }
            bids.append(record)
        }
        // Best first; the first bidder of equals (the configuration's order).
        entries.sort { $0.bid.price != $1.bid.price ? $0.bid.price > $1.bid.price : $0.index < $1.index }
        return (entries, bids)
    }

    private struct Answer: Sendable {
        enum Outcome: Sendable {
            case bid(NetworkBid, tracksItself: Bool, servingMode: ServingMode)
            /// Its network passed the bid over (and sent its loss notice).
            case passedOver(PassedOverBid)
            case failed(ResponseInfo.Bid.Outcome, String)
            /// A bid the auction cannot take (its price or currency), lost as an invalid response.
            case invalid(NetworkBid, String)
        }
        var outcome: Outcome
        /// When it was asked, and when it answered, since the load began; how long it was given.
        var start: Duration
        var end: Duration
        var time: Duration? = nil
    }

    /// One bidder's answer within the auction's time (`elapsed`: the time since the load began).
    private func ask(
        _ item: LineItem, decision: LineItemDecisions.Decision, privacy: PrivacyState?, request: AdLoadRequest,
        notices: NoticeLog.Source?, elapsed: @escaping @Sendable () -> Duration
    ) async -> Answer {
        let start = elapsed()
        var time: Duration?
        func answer(_ outcome: Answer.Outcome) -> Answer {
            Answer(outcome: outcome, start: start, end: elapsed(), time: time)
        }
        if let reason = decision.consent.reason { return answer(.failed(.consentMissing, reason)) }
        guard let host = networks[item.network] else {
            return answer(.failed(.notReady, "no network named '\(item.network)'"))
        }
        // The bidders' time covers a network still setting up: no bidder holds the auction.
        let timing = unit.auction
        let wait = max(.milliseconds(1), min(item.timeout, timing.bidWait - elapsed()))
        time = wait
        let networkRequest = NetworkAdRequest(
            adUnit: unit.id, parameter: item.parameter, options: item.options, formatIDs: request.formatIDs,
            preferences: request.preferences, privacy: privacy, app: request.app,
            advertisingID: request.advertisingID, servingMode: decision.servingMode,
            deadline: Deadline(after: wait, on: clock), networkBuffer: timing.networkBuffer, floorCPM: unit.floorCPM,
            currency: unit.currency, quality: unit.quality, test: request.test, notices: notices)
        let format = unit.format
        // A bid that comes after the bidders' time is not in the auction: it hears so (2, expired).
        let ledger = self.ledger
        let tooLate: @Sendable ((BidAnswer, Bool)) -> Void = {
            if case .bid(let bid) = $0.0 { ledger.settle(bid.owed, .lost(.expired)) }
        }
        let outcome = await withTimeout(wait, clock: clock, late: tooLate) { () async throws -> (BidAnswer, Bool) in
            guard let adapter = await host.ready() else { throw NotReady(reason: await host.notReadyReason) }
            guard let bidder = adapter as? any BiddingAdNetwork else {
                throw AdLoadError(.invalidRequest, "\(item.network) does not bid")
            }
            return (try await bidder.bid(networkRequest, format: format), adapter.tracksImpressionsAndClicks)
        }
        switch outcome {
        case .value((.passedOver(let bid), _)):
            return answer(.passedOver(bid))
        case .value((.bid(let bid), let tracksItself)):
            guard AdValue.isPlausible(cpm: bid.price) else {
                ledger.settle(bid.owed, .lost(.invalidResponse))
                return answer(.invalid(bid, "an invalid price \(bid.price)"))
            }
            guard bid.currency == unit.currency else {
                ledger.settle(bid.owed, .lost(.invalidResponse))
                return answer(.invalid(bid, "a bid in \(bid.currency); the unit's prices are in \(unit.currency)"))
            }
            return answer(.bid(bid, tracksItself: tracksItself, servingMode: decision.servingMode))
        case .failure(let notReady as NotReady):
            return answer(.failed(.notReady, notReady.reason))
        case .failure(let error as AdLoadError) where error.code == .noFill:
            return answer(.failed(.noBid, error.message))
        case .failure(let error as AdLoadError) where error.code == .timeout:
            // The network's own timeout, budgeted to end before the auction's.
            return answer(.failed(.timeout, error.message))
        case .failure(let error):
            return answer(.failed(.error, (error as? AdLoadError)?.message ?? String(describing: error)))
        case .timedOut:
            return answer(.failed(.timeout, "no bid within \(wait)"))
        }
    }

    private struct NotReady: Error { var reason: String }
}

extension Auction {
    /// The order a load tries its sources in: for each bid, best first, the waterfall's line
    /// items worth more than it (in their order), then the bid; then the line items left.
    static func order(waterfall: [LineItem], bids: [Entry]) -> [Candidate] {
        var left = Array(waterfall.enumerated())
        var order: [Candidate] = []
        for entry in bids {
            let above = left.filter { ($0.element.cpm ?? -1) > entry.bid.price }
            order += above.map { .lineItem($0.offset, $0.element) }
            left.removeAll { ($0.element.cpm ?? -1) > entry.bid.price }
            order.append(.bid(entry))
        }
        return order + left.map { .lineItem($0.offset, $0.element) }
    }

    /// A source a load tries: a line item of the waterfall, or a bid.
    enum Candidate: Sendable {
        case lineItem(Int, LineItem)
        case bid(Entry)
    }
}
