import Foundation
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
    private let logger: Logger
    private let app: BidRequest.App?
    private let device: BidRequest.Device
    private let screen: (width: Int, height: Int)
    private let defaultEndpoint: String?
    private let regs: BidRequest.Regs

    public init(setup: Setup, context: AdNetworkContext) async throws {
        services = context.services
        blockedBids = BlockedBidCounters(factory: context.services.metrics)
        logger = context.logger
        defaultEndpoint = setup.endpoint
        app = setup.app?.bidRequest
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
        try await serve(try await auction(request, format: .native))
    }

    public func loadRewardedAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        try await serve(try await auction(request, format: .rewarded))
    }

    /// A waterfall line item: the bid serves if its ad loads, and goes to the ledger with it (won
    /// when the store keeps the ad, lost if the ad is dropped); lost at once if it does not load.
    private func serve(_ won: WonAuction) async throws(AdLoadError) -> NetworkAd {
        let owed = services.bids.open(won.notices)
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
    public func bid(_ request: NetworkAdRequest, format: AdFormat) async throws(AdLoadError) -> NetworkBid {
        let won = try await auction(request, format: format)
        return NetworkBid(
            price: won.auction.price, currency: won.auction.value.currency,
            load: { deadline async throws(AdLoadError) -> NetworkAd in try await won.load(before: deadline) },
            owed: services.bids.open(won.notices))
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
    private func auction(_ request: NetworkAdRequest, format: AdFormat) async throws(AdLoadError) -> WonAuction {
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
            services.bids.lost(error.lossNotices)
            throw error.error
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
            guard case .string(let text) = markup, text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<")
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

    private func bidRequest(
        id: String, for request: NetworkAdRequest, ask: OpenRTBAsk, format: AdFormat, signalsBudget: Duration
    ) async throws(AdLoadError) -> BidRequest {
        var impression = BidRequest.Impression(
            tagid: request.parameter, bidfloor: ask.bidfloor, bidfloorcur: ask.bidfloor == nil ? nil : ask.currency)
        switch format {
        case .native:
            let native = NativeRequest.object(mainImageMinimum: Self.mainImageMinimum(request.preferences))
            guard let encoded = try? JSONEncoder().encode(native) else {
                throw AdLoadError(.internalError, "cannot encode the native request")
            }
            impression.native = BidRequest.NativeObject(request: String(decoding: encoded, as: UTF8.self))
            impression.native?.battr = nonEmpty(request.quality.blockedAttributes)
        case .rewarded:
            impression.video = BidRequest.Video(mimes: RewardedVideo.mimeTypes, w: screen.width, h: screen.height)
            impression.video?.battr = nonEmpty(request.quality.blockedAttributes)
            impression.rwdd = 1
            impression.instl = 1
        }
        var device = self.device
        var regs = self.regs
        var user = BidRequest.User()
        if let privacy = request.privacy {
            device.lmt = privacy.limitAdTracking ? 1 : 0
            regs.usPrivacy = privacy.usPrivacy
            regs.gpp = privacy.gpp
            regs.gppSid = privacy.gppSid
            if let applies = privacy.gdprApplies { regs.gdpr = applies ? 1 : 0 }
            user.consent = privacy.tcfConsent
        }
        // Limited serving (the GDPR applies, no basis for ads): no identifier signal (the daemon
        // never sends device.ifa).
        let (attached, failed) = await signals(
            for: ask.options, requestID: id, within: signalsBudget, identifiers: request.servingMode != .limited,
            app: request.app)
        if !attached.isEmpty || !failed.isEmpty {
            user.ext = .init(secureSignals: nonEmpty(attached), secureSignalsErrors: nonEmpty(failed))
        }
        let hasRegs = regs.coppa != nil || regs.gdpr != nil || regs.usPrivacy != nil || regs.gpp != nil
        let quality = request.quality
        return BidRequest(
            id: id, imp: [impression], app: app, device: device,
            user: user.consent == nil && user.ext == nil ? nil : user, regs: hasRegs ? regs : nil,
            source: BidRequest.Source(tid: UUID().uuidString.lowercased()), tmax: ask.options.timeoutMilliseconds,
            cur: [ask.currency], badv: nonEmpty(quality.blockedAdvertisers), bcat: nonEmpty(quality.blockedCategories),
            cattax: quality.blockedCategories.isEmpty ? nil : quality.categoryTaxonomy,
            bapp: nonEmpty(quality.blockedApps))
    }

    private func nonEmpty<Element>(_ list: [Element]) -> [Element]? { list.isEmpty ? nil : list }

    /// The envelopes of the signal adapters the line item names, collected within `budget`, and
    /// the failures of those that gave none (seed 003: adapter errors reach the ad server, so
    /// that the integration can be fixed): a failing adapter costs its own signal, never the
    /// bid request.
    private func signals(
        for item: OpenRTBLineItem, requestID: String, within budget: Duration, identifiers: Bool, app: AppIdentity?
    ) async -> (signals: [BidRequest.AttachedSignal], errors: [BidRequest.AttachedError]) {
        guard !item.signals.isEmpty, let collector = services.signals else { return ([], []) }
        let result = await collector.collect(
            requestID: requestID, adapters: item.signals, timeout: budget, identifiers: identifiers, app: app)
        let signals = result.signals.filter { item.recipient == nil || $0.recipient == item.recipient }.map {
            signal in
            BidRequest.AttachedSignal(
                source: signal.adapter, adapterVersion: signal.adapterVersion.description,
                sdkVersion: signal.sdkVersion.description, keyID: signal.keyID, data: signal.envelope)
        }
        // One per adapter and code: an adapter failing for several recipients fails once here.
        var seen = Set<String>()
        let failures = result.errors.filter {
            ($0.recipient == nil || item.recipient == nil || $0.recipient == item.recipient)
                && seen.insert($0.adapter + " " + $0.code.rawValue).inserted
        }
        guard !failures.isEmpty else { return (signals, []) }
        let versions = Dictionary(await collector.statuses().map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        let errors = failures.map { failure in
            logger.debug(
                "a signal was left out of a bid request",
                metadata: ["adapter": "\(failure.adapter)", "code": "\(failure.code.rawValue)"])
            return BidRequest.AttachedError(
                source: failure.adapter, adapterVersion: versions[failure.adapter]?.adapterVersion?.description,
                sdkVersion: versions[failure.adapter]?.sdkVersion?.description, code: failure.code.rawValue)
        }
        return (signals, errors)
    }

    private static func mainImageMinimum(_ preferences: NativeAdPreferences) -> (width: Int, height: Int) {
        switch preferences.mediaAspectRatio {
        case .any: return (100, 100)
        case .landscape: return (191, 100)
        case .portrait: return (100, 191)
        }
    }
}
