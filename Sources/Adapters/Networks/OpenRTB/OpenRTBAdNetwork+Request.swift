import FoundationEssentials
import Mediation
import SharedTypes

/// What a bid request says of the app, the device and the privacy state.
extension OpenRTBAdNetwork {
    /// The bid request of one auction: the impression, the asking app, the device, the privacy
    /// state and the signals the line item names.
    func bidRequest(
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
        var regs = self.regs
        var user = BidRequest.User()
        if let privacy = request.privacy {
            regs.usPrivacy = privacy.usPrivacy
            regs.gpp = privacy.gpp
            regs.gppSid = privacy.gppSid
            if let applies = privacy.gdprApplies { regs.gdpr = applies ? 1 : 0 }
            if let coppa = privacy.coppa { regs.coppa = coppa ? 1 : 0 }
            if privacy.gpc == true { regs.ext = BidRequest.Regs.Extension(gpc: "1") }
            user.consent = privacy.tcfConsent
        }
        // Limited serving (the GDPR applies, no basis for ads): no identifier, neither the
        // advertising id nor an identifier signal.
        let (attached, failed) = await signals(
            for: ask.options, requestID: id, within: signalsBudget, identifiers: request.servingMode != .limited,
            app: request.app)
        // The Additional Consent string goes where the GDPR applies, beside the TC string.
        let additional = request.privacy?.gdprApplies == true ? request.privacy?.addtlConsent : nil
        if !attached.isEmpty || !failed.isEmpty || additional != nil {
            user.ext = .init(
                secureSignals: nonEmpty(attached), secureSignalsErrors: nonEmpty(failed),
                consentedProvidersSettings: additional.map { .init(consentedProviders: $0) })
        }
        let hasRegs =
            regs.coppa != nil || regs.gdpr != nil || regs.usPrivacy != nil || regs.gpp != nil
            || regs.ext != nil
        let quality = request.quality
        return BidRequest(
            id: id, imp: [impression], app: app(for: request.app), device: device(for: request),
            user: user.consent == nil && user.ext == nil ? nil : user, regs: hasRegs ? regs : nil,
            source: BidRequest.Source(tid: UUID().uuidString.lowercased(), schain: Self.supplyChain(of: request.app)),
            tmax: ask.options.timeoutMilliseconds,
            cur: [ask.currency], test: request.test ? 1 : nil, badv: nonEmpty(quality.blockedAdvertisers),
            bcat: nonEmpty(quality.blockedCategories),
            cattax: quality.blockedCategories.isEmpty ? nil : quality.categoryTaxonomy,
            bapp: nonEmpty(quality.blockedApps))
    }

    func nonEmpty<Element>(_ list: [Element]) -> [Element]? { list.isEmpty ? nil : list }

    /// The envelopes of the signal adapters the line item names, collected within `budget`, and
    /// the failures of those that gave none (seed 003: adapter errors reach the ad server, so
    /// that the integration can be fixed): a failing adapter costs its own signal, never the
    /// bid request.
    func signals(
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

    /// The asking app as the registry describes it (its id; the setup's publisher id, and its
    /// other fields where the description has none); none for an app the registry does not describe, since a setup never makes
    /// an app what it is not. A request with no app at all (a test of the core alone) carries
    /// the setup's `app` as it is.
    func app(for identity: AppIdentity?) -> BidRequest.App? {
        guard let identity else { return appOverrides.map { $0.overriding(BidRequest.App()) } }
        guard let description = identity.description else { return nil }
        let publisher = description.publisher.map {
            BidRequest.Publisher(id: $0.id, name: $0.name, domain: $0.domain)
        }
        let app = BidRequest.App(
            id: identity.id, name: description.name, bundle: description.bundle, storeurl: description.storeURL,
            ver: description.version, cat: description.cat.isEmpty ? nil : description.cat,
            cattax: description.cat.isEmpty ? nil : description.cattax, publisher: publisher)
        return appOverrides?.overriding(app) ?? app
    }

    /// The asking app's supply chain, from its publisher's nodes in the registry; none when it
    /// lists none.
    static func supplyChain(of identity: AppIdentity?) -> BidRequest.SupplyChain? {
        guard let nodes = identity?.description?.publisher?.schain, !nodes.isEmpty else { return nil }
        return BidRequest.SupplyChain(nodes: nodes.map { .init(asi: $0.asi, sid: $0.sid, hp: $0.hp) })
    }

    /// The device as set up, with the load's advertising id (`ifa`, `ext.ifa_type`) unless the
    /// serving is limited, zeros when ad tracking is limited; `lmt` from the id, else from the
    /// privacy state.
    func device(for request: NetworkAdRequest) -> BidRequest.Device {
        var device = self.device
        let limited = request.privacy?.limitAdTracking
        device.lmt = limited.map { $0 ? 1 : 0 }
        guard let id = request.advertisingID, request.servingMode != .limited else { return device }
        let sent = id.limitAdTracking || limited == true ? id.limited : id
        device.ifa = sent.ifa
        device.ext = BidRequest.Device.Extension(ifaType: sent.type.rawValue)
        device.lmt = sent.limitAdTracking ? 1 : 0
        return device
    }
}
