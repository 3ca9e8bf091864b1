import Consent
import SharedTypes
import Timing

/// Tries an ad unit's line items in order until one fills, each under its own timeout on
/// `clock` (the store's), and reports every attempt.
struct Waterfall {
    struct Fill: Sendable {
        var ad: NetworkAd
        var network: String
        var tracksItself: Bool
        var info: ResponseInfo
        /// What the line item that filled needs from the user's consent.
        var consent: ConsentRequirement = .none
        /// What the load tried, as its trace shows it.
        var trace = Tried(bidders: [], sources: [])
    }

    struct Failure: Error, Sendable {
        var error: AdLoadError
        var info: ResponseInfo
        var trace: Tried
    }

    /// The bidders asked and the sources tried, each with its start since the load's.
    struct Tried: Sendable {
        var bidders: [BidderTrace]
        var sources: [SourceTrace]
        /// The notices its bids are owed, noted as they go.
        var notices: NoticeLog? = nil

        /// `response_info` as a client sees it: the same answers without their starts.
        func info(network: String?, servingMode: ServingMode? = nil) -> ResponseInfo {
            ResponseInfo(
                attempts: sources.map(\.attempt), bids: bidders.isEmpty ? nil : bidders.map(\.answer),
                network: network, servingMode: servingMode)
        }
    }

    let unit: AdUnit
    let networks: [String: NetworkHost]
    /// Where every bid the load meets is settled.
    let ledger: BidLedger
    /// What the timeouts, the deadlines and the latencies are counted on: the store's clock.
    let clock: any Clock<Duration>

    /// `decisions`: the privacy state's, per line item: one it denies is skipped, and each
    /// request carries the serving mode it allows. With bidders, their auction runs first and
    /// each bid at or above the floor is slotted among the line items by price
    /// (`Auction.order`); every bid is settled in the ledger: lost here with its reason, or
    /// handed to the store with the ad it serves (won once the store keeps it).
    /// `notices`: where the load's trace notes the notices its bids are owed (nil: no trace).
    func load(
        _ request: AdLoadRequest, decisions: LineItemDecisions, notices: NoticeLog? = nil
    ) async -> Result<Fill, Failure> {
        let sinceStart = clock.stopwatch()
        var attempts: [SourceTrace] = []
        var lastError = AdLoadError(.noFill, "the waterfall is empty")
        let auction =
            unit.bidders.isEmpty
            ? nil
            : await Auction(unit: unit, networks: networks, ledger: ledger, clock: clock).run(
                request, decisions: decisions, notices: notices)
        var bids = auction?.bids ?? []
        var unsettled = auction?.entries ?? []
        /// The bids not tried lose to what served (worth `price` when known); a load that ends
        /// unfilled has tried them all.
        func settle(winner: Int?, price: Double?) {
            for entry in unsettled where entry.index != winner {
                ledger.settle(entry.bid.owed, .lost(.outbid, minimumToWin: price))
                record(entry.index, .lost, reason: .outbid)
            }
            unsettled.removeAll()
        }
        /// `bids` holds one answer per bidder, in the unit's order.
        func record(_ bidder: Int, _ outcome: ResponseInfo.Bid.Outcome, reason: AuctionLossReason? = nil) {
            bids[bidder].outcome = outcome
            bids[bidder].lossReason = reason
        }
        for candidate in Auction.order(waterfall: unit.waterfall, bids: auction?.entries ?? []) {
            let elapsed = clock.stopwatch()
            let began = sinceStart()
            let kind: SourceTrace.Kind
            let item: LineItem
            let servingMode: ServingMode
            let tracksItself: Bool
            let outcome: TimedOutcome<NetworkAd>
            switch candidate {
            case .lineItem(let index, let lineItem):
                item = lineItem
                kind = .lineItem
                let decision = decisions.decision(unit: unit.id, item: index)
                if let reason = decision.consent.reason {
                    attempts.append(.init(kind, item, .consentMissing, began, after: elapsed(), reason))
                    lastError = AdLoadError(.noFill, "\(item.network): \(reason)")
                    continue
                }
                guard let host = networks[item.network], let adapter = await host.ready() else {
                    let reason = await networks[item.network]?.notReadyReason ?? "no network named '\(item.network)'"
                    attempts.append(.init(kind, item, .notReady, began, after: elapsed(), reason))
                    lastError = AdLoadError(.networkError, reason)
                    continue
                }
                servingMode = decision.servingMode
                tracksItself = adapter.tracksImpressionsAndClicks
                let networkRequest = NetworkAdRequest(
                    adUnit: unit.id, parameter: item.parameter, options: item.options, formatIDs: request.formatIDs,
                    preferences: request.preferences, privacy: decisions.privacy, app: request.app,
                    advertisingID: request.advertisingID, servingMode: servingMode,
                    deadline: Deadline(after: item.timeout, on: clock), currency: unit.currency,
                    quality: unit.quality, test: request.test,
                    notices: notices.map {
                        NoticeLog.Source(log: $0, network: item.network, parameter: item.shownParameter)
                    })
                let format = unit.format
                // An ad that comes after the timeout is dropped: the bid it serves, if any, lost.
                let ledger = self.ledger
                let tooLate: @Sendable (NetworkAd) -> Void = { ledger.settle($0.bid, .lost(.internalError)) }
                outcome = await withTimeout(item.timeout, clock: clock, late: tooLate) { () async throws -> NetworkAd in
                    switch format {
                    case .native: return try await adapter.loadNativeAd(networkRequest)
                    case .rewarded: return try await adapter.loadRewardedAd(networkRequest)
                    }
                }
            case .bid(let entry):
                item = entry.item
                kind = .bid
                servingMode = entry.servingMode
                tracksItself = entry.tracksItself
                let load = entry.bid.load
                let deadline = Deadline(after: item.timeout, on: clock)
                outcome = await withTimeout(item.timeout, clock: clock) { () async throws -> NetworkAd in
                    try await load(deadline)
                }
            }
            /// A bid that could not serve is lost now; the next source is tried.
            func failed(_ outcome: ResponseInfo.Attempt.Outcome, _ error: AdLoadError, message: String) {
                attempts.append(.init(kind, item, outcome, began, after: elapsed(), message))
                lastError = error
                guard case .bid(let entry) = candidate else { return }
                ledger.settle(entry.bid.owed, .lost(.internalError))
                record(entry.index, .lost, reason: .internalError)
                unsettled.removeAll { $0.index == entry.index }
            }
            switch outcome {
            case .value(var ad):
                if let problem = Self.mismatch(ad.content, format: unit.format, formatIDs: request.formatIDs) {
                    ledger.settle(ad.bid, .lost(.internalError))
                    failed(.error, AdLoadError(.internalError, "\(item.network): \(problem)"), message: problem)
                    continue
                }
                attempts.append(.init(kind, item, .filled, began, after: elapsed(), nil))
                var winner: Int?
                var price = item.cpm
                if case .bid(let entry) = candidate {
                    // A winning bid is settled once the store knows whether it keeps the ad.
                    ad.bid = entry.bid.owed
                    winner = entry.index
                    price = entry.bid.price
                    record(entry.index, .won)
                }
                settle(winner: winner, price: price)
                let tried = Tried(bidders: bids, sources: attempts, notices: notices)
                return .success(
                    Fill(
                        ad: ad, network: item.network, tracksItself: tracksItself,
                        info: tried.info(network: item.network, servingMode: servingMode), consent: item.consent,
                        trace: tried))
            case .failure(let error as AdLoadError) where error.code == .noFill:
                failed(.noFill, error, message: error.message)
            case .failure(let error as AdLoadError) where error.code == .timeout:
                // The network's own time (an OpenRTB bidder's `timeout_ms`) ran out before the line item's.
                failed(.timeout, error, message: error.message)
            case .failure(let error):
                var failure = error as? AdLoadError ?? AdLoadError(.networkError, String(describing: error))
                // A network refusing its line item is the network's failure, not the client's request.
                if failure.code == .invalidRequest { failure.code = .networkError }
                failed(.error, failure, message: failure.message)
            case .timedOut:
                let message = "no answer within \(item.timeout)"
                failed(.timeout, AdLoadError(.timeout, "\(item.network): \(message)"), message: message)
            }
        }
        settle(winner: nil, price: nil)
        let tried = Tried(bidders: bids, sources: attempts, notices: notices)
        if attempts.isEmpty, unit.waterfall.isEmpty, !unit.bidders.isEmpty {
            lastError = AdLoadError(
                .noFill, unit.floorCPM == nil ? "no bid" : "no bid at or above the floor (response_info.bids says why)")
        }
        return .failure(Failure(error: lastError, info: tried.info(network: nil), trace: tried))
    }

    /// Why a network's ad does not fit the load, if it does not.
    static func mismatch(_ content: NetworkAd.Content, format: AdFormat, formatIDs: [String]) -> String? {
        switch (content, format) {
        case (.native, .native), (.rewarded, .rewarded):
            return nil
        case (.customNative(let ad), .native):
            return formatIDs.contains(ad.formatID)
                ? nil : "answered custom native format \(ad.formatID), which the client does not render"
        default:
            return "answered an ad of another format"
        }
    }
}

extension SourceTrace {
    /// `item`'s attempt, begun `start` after the load and which took `latency`.
    init(
        _ kind: Kind, _ item: LineItem, _ outcome: ResponseInfo.Attempt.Outcome, _ start: Duration,
        after latency: Duration, _ message: String?
    ) {
        self.init(
            kind: kind, network: item.network, parameter: item.shownParameter, outcome: outcome,
            startMilliseconds: milliseconds(start), latencyMilliseconds: milliseconds(latency),
            timeoutMilliseconds: [.consentMissing, .notReady].contains(outcome) ? nil : milliseconds(item.timeout),
            message: message)
    }

    /// The attempt as `response_info` shows it.
    var attempt: ResponseInfo.Attempt {
        ResponseInfo.Attempt(
            network: network, parameter: parameter, outcome: outcome, latencyMilliseconds: latencyMilliseconds,
            message: message)
    }
}

extension BidderTrace {
    /// The bidder's answer as `response_info` shows it.
    var answer: ResponseInfo.Bid {
        ResponseInfo.Bid(
            network: network, parameter: parameter, price: price, outcome: outcome, lossReason: lossReason,
            latencyMilliseconds: latencyMilliseconds, message: message)
    }
}

extension Result where Success == Waterfall.Fill, Failure == Waterfall.Failure {
    /// What the load tried, filled or not.
    var info: ResponseInfo {
        switch self {
        case .success(let fill): fill.info
        case .failure(let failure): failure.info
        }
    }

    /// What the load tried, as its trace shows it.
    var tried: Waterfall.Tried {
        switch self {
        case .success(let fill): fill.trace
        case .failure(let failure): failure.trace
        }
    }
}
