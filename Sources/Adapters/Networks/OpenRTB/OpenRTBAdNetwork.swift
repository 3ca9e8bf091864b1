import FoundationEssentials
import Logging
import Mediation
import SecureSignals
import SharedTypes
import Timing

/// A bidder that speaks OpenRTB 2.6: each load is a one-impression auction, native (with a
/// Native 1.2 request) or rewarded video (VAST), carrying the device's privacy state and the
/// secure signals its line item names. The best bid in the requested currency at or above the
/// floor wins. Its `setup` is `Setup`; a line item's options, `OpenRTBLineItem`.
public struct OpenRTBAdNetwork: BiddingAdNetwork {
    public static let name = "openrtb"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    /// The OpenRTB version it speaks.
    public let sdkVersion = SemanticVersion(2, 6, 0)

    let services: AdNetworkServices
    private let blockedBids: BlockedBidCounters
    let logger: Logger
    /// The setup's `app`: its fields override the registry's description of each asking app.
    let appOverrides: Setup.App?
    let device: BidRequest.Device
    let screen: (width: Int, height: Int)
    private let defaultEndpoint: String?
    let regs: BidRequest.Regs

    public init(setup: Setup, context: AdNetworkContext) async throws {
        services = context.services
        blockedBids = BlockedBidCounters(factory: context.services.metrics)
        logger = context.logger
        defaultEndpoint = setup.endpoint
        appOverrides = setup.app
        let deviceContext = try DeviceContextAdapter.read(
            brand: setup.device.make, model: setup.device.model, osReleasePath: setup.device.osReleasePath)
        var device = setup.device.bidRequest
        device.os = deviceContext.os
        device.osv = deviceContext.osVersion
        device.language = Self.language(of: deviceContext.locale)
        self.device = device
        screen = (setup.device.w, setup.device.h)
        regs = BidRequest.Regs(coppa: setup.coppa.map { $0 ? 1 : 0 }, gdpr: setup.gdpr)
    }

    public static func problem(
        with item: LineItem, options: OpenRTBLineItem, setup: Setup, format: AdFormat, currency: String,
        signalAdapters: Set<String>
    ) -> String? {
        let ask: OpenRTBAsk
        do {
            ask = try OpenRTBAsk(options, defaultEndpoint: setup.endpoint, unitCurrency: currency, unitFloor: nil)
        } catch {
            return error.message
        }
        guard let url = URL(string: ask.endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            return "option 'endpoint' must be an http(s) URL, not \(ask.endpoint)"
        }
        if let unknown = options.signals.first(where: { !signalAdapters.contains($0) }) {
            return "option 'signals' names '\(unknown)', which is not a configured signal adapter"
        }
        return nil
    }

    /// ISO 639-1 from a POSIX locale (`fr_FR.UTF-8` → `fr`); nil for `C` and `POSIX`.
    static func language(of locale: String) -> String? {
        let code = locale.prefix { $0.isLetter }.lowercased()
        return code.count == 2 ? code : nil
    }

    public func loadNativeAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        try await serve(try await won(request, format: .native))
    }

    public func loadRewardedAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        try await serve(try await won(request, format: .rewarded))
    }

    /// A waterfall line item's auction: one without a winner is its failure.
    private func won(_ request: NetworkAdRequest, format: AdFormat) async throws(AdLoadError) -> WonAuction {
        do {
            return try await auction(request, format: format)
        } catch {
            throw error.error
        }
    }

    /// A waterfall line item: the bid serves if its ad loads, and goes to the ledger with it (won
    /// when the store keeps the ad, lost if the ad is dropped); lost at once if it does not load.
    private func serve(_ won: WonAuction) async throws(AdLoadError) -> NetworkAd {
        let owed = services.bids.open(won.notices, source: won.request.notices)
        do {
            var ad = try await won.load(before: won.request.deadline)
            ad.bid = owed
            return ad
        } catch {
            services.bids.settle(owed, .lost(.internalError))
            throw error
        }
    }

    /// An ad unit's bidder: the bidder's best bid, whose ad loads only if it earns a turn.
    /// Its best bid passed over (under the floor, blocked) is said so, with its price.
    public func bid(_ request: NetworkAdRequest, format: AdFormat) async throws(AdLoadError) -> BidAnswer {
        let won: WonAuction
        do {
            won = try await auction(request, format: format)
        } catch {
            if let passedOver = error.passedOver { return .passedOver(passedOver) }
            throw error.error
        }
        return .bid(
            NetworkBid(
                price: won.auction.price, currency: won.auction.value.currency,
                load: { deadline async throws(AdLoadError) -> NetworkAd in try await won.load(before: deadline) },
                owed: services.bids.open(won.notices, source: request.notices), details: won.auction.details))
    }

    /// A bidder's answer with a winning bid: how to load its ad, and the notices it is owed (the
    /// ledger sends them, once).
    private struct WonAuction: Sendable {
        let auction: BidResponseReader.Auction
        let network: OpenRTBAdNetwork
        let request: NetworkAdRequest
        let ask: OpenRTBAsk
        let format: AdFormat
        let notices: OpenRTBBidNotices

        /// The bid's markup as an ad, before `deadline`: from `adm`, or from the win notice when
        /// that serves it (then the fetch is the winner's notice: nothing follows it).
        func load(before deadline: Deadline?) async throws(AdLoadError) -> NetworkAd {
            var request = self.request
            request.deadline = deadline
            if auction.markup == nil, auction.winNotice != nil { notices.fetchingMarkupFromWinNotice() }
            return try await network.ad(of: auction, request: request, ask: ask, format: format)
        }
    }

    /// One auction within the line item's `timeout_ms` (and the load's deadline): the signals
    /// take at most half, the bidder gets what is left, and is told that less the network
    /// buffer an ad unit's auction keeps, as `tmax`. A bidder that would be left less than
    /// `AuctionTiming.minimumTmax` is not asked (a timeout), and no signals are collected for it.
    private func auction(_ request: NetworkAdRequest, format: AdFormat) async throws(BidResponseReader.Failure)
        -> WonAuction
    {
        do {
            return try await ask(request, format: format)
        } catch let failure as BidResponseReader.Failure {
            throw failure
        } catch {
            throw BidResponseReader.Failure(
                error as? AdLoadError ?? AdLoadError(.internalError, String(describing: error)))
        }
    }

    /// `auction`'s work: what it throws is an `AdLoadError`, or the reader's failure.
    private func ask(_ request: NetworkAdRequest, format: AdFormat) async throws -> WonAuction {
        let ask = try OpenRTBAsk(
            try lineItemOptions(of: request), defaultEndpoint: defaultEndpoint, unitCurrency: request.currency,
            unitFloor: request.floorCPM)
        let budget = request.budget(.milliseconds(ask.options.timeoutMilliseconds))
        // When the bidder's time ends, on the request's clock (the monotonic one when it has no
        // deadline): the signals' time comes out of it.
        let end = request.deadline?.limited(to: budget) ?? Deadline(after: budget, on: ContinuousClock())
        // The bidder's least tmax is kept first; the signals may take half of the rest at most,
        // less a slack for the work around them, so that they never push tmax under it.
        let spare = budget - request.networkBuffer - AuctionTiming.minimumTmax
        guard spare >= .zero else { throw Self.notAsked(tmax: budget - request.networkBuffer) }
        let requestID = UUID().uuidString.lowercased()
        var bidRequest = try await bidRequest(
            id: requestID, for: request, ask: ask, format: format,
            signalsBudget: min(budget / 2, max(.zero, spare - .milliseconds(2))))
        let remaining = max(.milliseconds(1), end.remaining)
        // tmax is sent in whole milliseconds, rounded: the minimum is judged on what is sent.
        let tmax = Int(milliseconds(remaining - request.networkBuffer).rounded())
        guard tmax >= Int(milliseconds(AuctionTiming.minimumTmax)) else {
            throw Self.notAsked(tmax: .milliseconds(tmax))
        }
        bidRequest.tmax = tmax
        let body: [UInt8]
        do {
            body = Array(try JSONEncoder().encode(bidRequest))
        } catch {
            throw AdLoadError(.internalError, "cannot encode the bid request: \(error)")
        }
        let response: AdServerResponse
        do {
            response = try await services.fetcher.send(
                AdServerRequest(
                    method: .post, url: ask.endpoint,
                    headers: [("Content-Type", "application/json"), ("x-openrtb-version", "2.6")]
                        + ask.options.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                    body: body, timeout: remaining))
        } catch {
            throw AdLoadError(error.kind == .timeout ? .timeout : .networkError, "bidder: \(error.message)")
        }
        do {
            let auction = try BidResponseReader(
                requestID: requestID, ask: ask, format: format, quality: request.quality, limits: services.limits,
                blocked: { blockedBids.count($0) }
            ).read(response)
            return WonAuction(
                auction: auction, network: self, request: request, ask: ask, format: format,
                notices: OpenRTBBidNotices(auction))
        } catch {
            services.bids.lost(error.lossNotices, source: request.notices)
            throw error
        }
    }

    /// Why a bidder that would have had `tmax` was not asked.
    private static func notAsked(tmax: Duration) -> AdLoadError {
        AdLoadError(
            .timeout,
            "bidder not asked: it would have a tmax of \(max(0, Int(milliseconds(tmax)))) ms, under the "
                + "\(Int(milliseconds(AuctionTiming.minimumTmax))) ms a bidder is given at least")
    }

    /// The winning bid's ad: its markup (fetched through the win notice when the bid has none,
    /// OpenRTB 2.6 §6.3.1), read as the unit's format (its billing is the ledger's, at the impression).
    fileprivate func ad(
        of auction: BidResponseReader.Auction, request: NetworkAdRequest, ask: OpenRTBAsk, format: AdFormat
    ) async throws(AdLoadError) -> NetworkAd {
        var markup = auction.markup
        if markup == nil, let nurl = auction.winNotice {
            do {
                let answer = try await services.fetcher.fetch(nurl, timeout: request.budget(.seconds(5)))
                markup = .string(String(decoding: answer, as: UTF8.self))
            } catch {
                throw AdLoadError(.networkError, "the win notice that serves the ad failed: \(error.message)")
            }
        }
        guard let markup else { throw AdLoadError(.networkError, "the winning bid has neither adm nor nurl") }
        var ad: NetworkAd
        switch format {
        case .native:
            ad = try await nativeAd(markup, macros: auction.macros, request: request)
        case .rewarded:
            guard case .string(let text) = markup, text.trimmingWhitespace.hasPrefix("<")
            else {
                throw AdLoadError(.networkError, "the video bid's adm is not a VAST document")
            }
            ad = try await RewardedVideo(services: services, request: request).load(
                document: auction.macros.expand(text), url: nil, reward: ask.options.reward)
        }
        ad.value = auction.value
        ad.expiry = auction.expiry
        return ad
    }

    static func mainImageMinimum(_ preferences: NativeAdPreferences) -> (width: Int, height: Int) {
        switch preferences.mediaAspectRatio {
        case .any: return (100, 100)
        case .landscape: return (191, 100)
        case .portrait: return (100, 191)
        }
    }
}
