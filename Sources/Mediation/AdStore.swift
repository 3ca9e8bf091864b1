import DequeModule
import Foundation
import HeapModule
import Logging
import Metrics
import SharedTypes

/// The daemon's ads: loads through each unit's waterfall (a load of a unit already loading
/// joins it; a ready ad is handed out again until used, unless forced), background retries of
/// failed loads with backoff 2^min(6, attempt) s, expiry, and each ad's lifecycle, with
/// impressions and clicks counted once and a rewarded ad's events in order.
public actor AdStore<C: Clock> where C.Duration == Duration {
    public typealias LoadResult = Result<MediatedAd, AdLoadFailure>

    private let clock: C
    private let origin: C.Instant
    private var units: [String: AdUnit]
    private var networks: [String: NetworkHost]
    private let registry: AdNetworkRegistry
    private let services: AdNetworkServices
    private let logger: Logger
    public nonisolated let events: EventHub
    private let metrics: AdMetrics

    private var ads: [String: LoadedAd] = [:]
    /// When each ad leaves the store, soonest first (entries of ads already gone are skipped).
    private var drops = Heap<Drop>()
    /// Each unit's latest ads, in load order: an ad that falls off the end unused is dropped.
    private var latest: [String: Deque<String>] = [:]
    private var readyAd: [String: String] = [:]
    private var inFlight: [String: Task<LoadResult, Never>] = [:]
    private var retryAttempts: [String: Int] = [:]
    private var retries: [String: Task<Void, Never>] = [:]
    private var privacy: PrivacyState?

    /// `metrics`: where the ad events and load latencies are counted (the process's backend
    /// unless a caller gives one).
    public init(
        units: [AdUnit], networks: [AdNetworkConfiguration], registry: AdNetworkRegistry,
        services: AdNetworkServices, clock: C, logger: Logger, events: EventHub = EventHub(),
        metrics: any MetricsFactory = MetricsSystem.factory
    ) throws(AdLoadError) {
        self.clock = clock
        self.metrics = AdMetrics(factory: metrics)
        self.origin = clock.now
        self.services = services
        self.logger = logger
        self.events = events
        self.registry = registry
        self.networks = try Self.hosts(
            networks, keeping: [:], registry: registry, services: services, logger: logger)
        self.units = Dictionary(units.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
    }

    /// A host per network: the one in `current` when its configuration is unchanged (it stays
    /// set up), else a new one.
    private static func hosts(
        _ networks: [AdNetworkConfiguration], keeping current: [String: NetworkHost], registry: AdNetworkRegistry,
        services: AdNetworkServices, logger: Logger
    ) throws(AdLoadError) -> [String: NetworkHost] {
        var hosts: [String: NetworkHost] = [:]
        for network in networks {
            if let host = current[network.name], host.configuration == network {
                hosts[network.name] = host
                continue
            }
            guard let type = registry.type(named: network.name) else {
                throw AdLoadError(.invalidRequest, "no ad network named '\(network.name)'")
            }
            hosts[network.name] = NetworkHost(configuration: network, type: type, services: services, logger: logger)
        }
        return hosts
    }

    /// Takes a reloaded configuration (SIGHUP): new and changed ad units and networks apply to
    /// the next load; unchanged networks stay set up; new ones are set up now unless lazy.
    /// Loads under way finish with what they started with; loaded ads stay usable.
    public func reload(units: [AdUnit], networks: [AdNetworkConfiguration]) async throws(AdLoadError) {
        let hosts = try Self.hosts(
            networks, keeping: self.networks, registry: registry, services: services, logger: logger)
        let fresh = hosts.filter { name, host in self.networks[name] !== host && !host.isLazy }.map(\.value)
        self.networks = hosts
        self.units = Dictionary(units.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        for (unit, task) in retries where self.units[unit] == nil {
            task.cancel()
            retries[unit] = nil
        }
        for host in fresh { Task { _ = await host.ready() } }
    }

    private var now: Duration { origin.duration(to: clock.now) }

    // MARK: - Networks

    /// Sets up every network that is not lazy, all at once.
    public func initializeNetworks() async {
        let eager = networks.values.filter { !$0.isLazy }
        await withTaskGroup(of: Void.self) { group in
            for host in eager { group.addTask { _ = await host.ready() } }
        }
    }

    public func networkStatuses() async -> [AdapterStatus] {
        var statuses: [AdapterStatus] = []
        for name in networks.keys.sorted() {
            if let host = networks[name] { statuses.append(await host.status) }
        }
        return statuses
    }

    public var networksSettled: Bool {
        get async {
            for host in networks.values where !(await host.isSettled) { return false }
            return true
        }
    }

    public func setPrivacy(_ privacy: PrivacyState) { self.privacy = privacy }

    // MARK: - Loads

    public func load(_ request: AdLoadRequest) async -> LoadResult {
        guard let unit = units[request.adUnit] else {
            return .failure(AdLoadFailure(AdLoadError(.invalidRequest, "no ad unit '\(request.adUnit)'"), info: nil))
        }
        guard unit.format == request.format else {
            return .failure(
                AdLoadFailure(
                    AdLoadError(
                        .invalidRequest,
                        "ad unit '\(unit.id)' serves \(unit.format.rawValue) ads, not \(request.format.rawValue)"),
                    info: nil))
        }
        if !request.force, hasReadyAd(unit.id), let id = readyAd[unit.id], let ad = ads[id] {
            return .success(ad.snapshot(now: now))
        }
        if let loading = inFlight[unit.id] { return await loading.value }
        return await startLoad(unit, request).value
    }

    private func startLoad(_ unit: AdUnit, _ request: AdLoadRequest) -> Task<LoadResult, Never> {
        let waterfall = Waterfall(unit: unit, networks: networks)
        let privacy = self.privacy
        let metrics = self.metrics
        let task = Task {
            let start = ContinuousClock.now
            let result = await waterfall.load(request, privacy: privacy)
            metrics.loaded(unit: unit.id, after: .now - start)
            return await self.finishLoad(unit, request, result)
        }
        inFlight[unit.id] = task
        return task
    }

    private func finishLoad(
        _ unit: AdUnit, _ request: AdLoadRequest, _ result: Result<Waterfall.Fill, Waterfall.Failure>
    )
        async -> LoadResult
    {
        // The load stays in flight (later loads join it) until its ad is stored, images and all.
        defer { inFlight[unit.id] = nil }
        switch result {
        case .success(var fill):
            // Only the main image, unless the client asked for them all, whatever the network sent.
            if case .native(var native) = fill.ad.content, !request.preferences.multipleImages, native.images.count > 1
            {
                native.images = [native.images[0]]
                fill.ad.content = .native(native)
            }
            if !request.preferences.disableImageLoading { fill.ad.content = await loadImages(fill.ad.content) }
            let ad = LoadedAd(
                id: UUID().uuidString.lowercased(), unit: unit, fill: fill, ssv: request.ssv,
                preferences: request.preferences, loadedAt: now)
            sweep()
            keep(ad)
            readyAd[unit.id] = ad.id
            retryAttempts[unit.id] = 0
            retries.removeValue(forKey: unit.id)?.cancel()
            publish(.loaded, ad, ["network": .string(fill.network)])
            return .success(ad.snapshot(now: now))
        case .failure(let failure):
            metrics.count(.failedToLoad, unit: unit.id)
            events.publish(
                AdEvent(
                    name: .failedToLoad, adID: nil, adUnit: unit.id,
                    fields: ["code": .string(failure.error.code.rawValue), "message": .string(failure.error.message)]))
            scheduleRetry(unit, request)
            return .failure(AdLoadFailure(failure.error, info: failure.info))
        }
    }

    /// After a failed load: try again in 2^min(6, attempt) s, up to the unit's `max_retries`.
    private func scheduleRetry(_ unit: AdUnit, _ request: AdLoadRequest) {
        guard retries[unit.id] == nil else { return }  // one is already waiting
        let attempt = (retryAttempts[unit.id] ?? 0) + 1
        guard attempt <= unit.maxRetries else {
            retryAttempts[unit.id] = 0
            return
        }
        retryAttempts[unit.id] = attempt
        let delay = Duration.seconds(1 << min(6, attempt))
        logger.info(
            "ad load failed; retrying",
            metadata: ["ad_unit": "\(unit.id)", "attempt": "\(attempt)", "in_s": "\(delay)"])
        let clock = self.clock
        retries[unit.id] = Task {
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            await self.retry(unit, request)
        }
    }

    private func retry(_ unit: AdUnit, _ request: AdLoadRequest) async {
        retries[unit.id] = nil
        guard inFlight[unit.id] == nil, !hasReadyAd(unit.id) else { return }
        _ = await startLoad(unit, request).value
    }

    /// Whether `unit` has an ad a load would hand out now.
    private func hasReadyAd(_ unit: String) -> Bool {
        guard let id = readyAd[unit], let ad = ads[id] else { return false }
        return !ad.isUsed && ad.expiresAt > now
    }

    /// The background retry of `unit`, if one is waiting: its attempt number.
    public func pendingRetry(of unit: String) -> Int? {
        retries[unit] == nil ? nil : retryAttempts[unit]
    }

    private func loadImages(_ content: NetworkAd.Content) async -> NetworkAd.Content {
        switch content {
        case .native(var native):
            if let icon = native.icon { native.icon = await withData(icon) }
            var images: [NativeImage] = []
            for image in native.images { images.append(await withData(image)) }
            native.images = images
            if let icon = native.adChoices?.icon { native.adChoices?.icon = await withData(icon) }
            return .native(native)
        case .customNative(var custom):
            for (key, asset) in custom.assets {
                if case .image(let image) = asset { custom.assets[key] = .image(await withData(image)) }
            }
            if let image = custom.media?.image { custom.media?.image = await withData(image) }
            return .customNative(custom)
        case .rewarded:
            return content
        }
    }

    /// `image` with its bytes, when they can be fetched; as it was otherwise (the URL stays).
    private func withData(_ image: NativeImage) async -> NativeImage {
        guard image.data == nil else { return image }
        do {
            var loaded = image
            loaded.data = Data(try await services.fetcher.fetch(image.url)).base64EncodedString()
            return loaded
        } catch {
            logger.warning(
                "could not load an ad image", metadata: ["url": "\(redactedURL(image.url))", "error": "\(error)"])
            return image
        }
    }

    // MARK: - Lifecycle

    public func ad(_ id: String) throws(AdLifecycleError) -> MediatedAd {
        try live(id).snapshot(now: now)
    }

    /// The ad, if it exists and has not expired.
    private func live(_ id: String) throws(AdLifecycleError) -> LoadedAd {
        guard let ad = ads[id] else { throw AdLifecycleError(.unknownAd, "no ad '\(id)'") }
        guard ad.expiresAt > now else {
            throw AdLifecycleError(.adExpired, "ad '\(id)' expired; load another")
        }
        return ad
    }

    public func impression(_ id: String) async throws(AdLifecycleError) -> LifecycleOutcome {
        var ad = try live(id)
        guard !ad.impressionRecorded else { return .duplicate }
        ad.impressionRecorded = true
        ads[id] = ad
        recordImpression(ad)
        return .recorded
    }

    private func recordImpression(_ ad: LoadedAd) {
        publish(.impression, ad)
        if let value = ad.fill.ad.value {
            publish(
                .paid, ad,
                [
                    "value_micros": .integer(value.valueMicros), "currency": .string(value.currency),
                    "precision": .string(value.precision),
                ])
        }
        if !ad.fill.tracksItself { fire(ad.fill.ad.impressionTrackers, of: ad, kind: .impression) }
    }

    public func click(_ id: String, asset: String?) throws(AdLifecycleError) -> LifecycleOutcome {
        var ad = try live(id)
        let action = ad.clickAction(asset: asset)
        guard !ad.clickRecorded else {
            return LifecycleOutcome(recorded: false, reason: "duplicate", action: action)
        }
        ad.clickRecorded = true
        ads[id] = ad
        var fields: [String: EventField] = ["action": .string(action.type.rawValue)]
        if let asset { fields["asset"] = .string(asset) }
        publish(.click, ad, fields)
        if !ad.fill.tracksItself { fire(ad.fill.ad.clickTrackers, of: ad, kind: .click) }
        return LifecycleOutcome(recorded: true, reason: nil, action: action)
    }

    public func show(_ id: String) throws(AdLifecycleError) -> LifecycleOutcome {
        var ad: LoadedAd
        do {
            ad = try rewarded(id)
        } catch {
            // An ad the client tried to present and could not: say so on the stream too.
            if error.code == .adExpired, let expired = ads[id] {
                publish(.failedToPresent, expired, ["code": .string(error.code.rawValue)])
            }
            throw error
        }
        guard ad.presentation.show() else {
            throw AdLifecycleError(.adAlreadyUsed, "ad '\(id)' was already shown; load another")
        }
        publish(.willPresent, ad)
        if !ad.impressionRecorded {
            ad.impressionRecorded = true
            recordImpression(ad)
        }
        ads[id] = ad
        return .recorded
    }

    public func progress(_ id: String, _ progress: VideoProgress) async throws(AdLifecycleError) -> LifecycleOutcome {
        let ad = try shownRewarded(id)
        // The client's event counts now, before the network is asked: a dismiss that comes
        // meanwhile must find a completed video completed.
        let outcome = apply([.progress(progress)], to: id)
        if outcome.recorded, var current = ads[id], !current.fill.tracksItself {
            let (urls, marks) = current.progressTrackers(for: progress)
            current.trackedProgress.formUnion(marks)
            ads[id] = current
            fire(urls, of: current, kind: .progress)
        }
        let reported = await ad.fill.ad.presentation?.events(after: progress) ?? []
        if !reported.isEmpty { _ = apply(reported.map(Self.input), to: id) }
        return outcome
    }

    /// The client could not play a shown rewarded ad (VAST error `code`, e.g. 405): its error
    /// trackers fire once with the code, and `failed_to_present` is published; a repeat does
    /// nothing. The ad stays shown: dismiss it as usual.
    public func playbackError(_ id: String, code: Int) throws(AdLifecycleError) -> LifecycleOutcome {
        var ad = try shownRewarded(id)
        guard !ad.playbackFailed else { return .duplicate }
        ad.playbackFailed = true
        ads[id] = ad
        publish(.failedToPresent, ad, ["code": .string("playback_error"), "vast_error": .integer(Int64(code))])
        if !ad.fill.tracksItself, !ad.fill.ad.errorTrackers.isEmpty {
            services.trackers.enqueue(ad.fill.ad.errorTrackers.map { ad.fill.ad.trackerMacros($0, code) }, kind: .error)
        }
        return .recorded
    }

    public func dismiss(_ id: String) throws(AdLifecycleError) -> LifecycleOutcome {
        let ad = try shownRewarded(id)
        guard !ad.presentation.dismissed else { return .duplicate }
        let outcome = apply([.dismiss], to: id)
        if outcome.recorded, !ad.fill.tracksItself { fire(ad.fill.ad.dismissTrackers, of: ad, kind: .progress) }
        return outcome
    }

    /// After a dismiss (the client's or the network's): the next ad, when the unit preloads.
    private func preloadAfterDismiss(_ ad: LoadedAd) {
        guard ad.unit.preload, inFlight[ad.unit.id] == nil, !hasReadyAd(ad.unit.id) else { return }
        _ = startLoad(ad.unit, AdLoadRequest(adUnit: ad.unit.id, format: ad.format, ssv: ad.ssv))
    }

    private static func input(_ event: NetworkPresentationEvent) -> RewardedPresentation.Input {
        switch event {
        case .rewardEarned: return .networkReward
        case .dismissed: return .dismiss
        }
    }

    private func apply(_ inputs: [RewardedPresentation.Input], to id: String) -> LifecycleOutcome {
        guard var ad = ads[id] else { return .duplicate }
        let (names, repeated) = ad.presentation.apply(inputs)
        ads[id] = ad
        for name in names {
            var fields: [String: EventField] = [:]
            if name == .rewardEarned {
                if case .rewarded(let reward) = ad.fill.ad.content {
                    fields["reward"] = .object(["type": .string(reward.type), "amount": .number(reward.amount)])
                }
                if let ssv = ad.ssv, ssv.customData != nil || ssv.userID != nil {
                    var object: [String: EventField] = [:]
                    if let data = ssv.customData { object["custom_data"] = .string(data) }
                    if let user = ssv.userID { object["user_id"] = .string(user) }
                    fields["ssv"] = .object(object)
                }
            }
            publish(name, ad, fields)
        }
        if names.contains(.dismissed) { preloadAfterDismiss(ad) }
        return repeated ? .duplicate : .recorded
    }

    private func rewarded(_ id: String) throws(AdLifecycleError) -> LoadedAd {
        let ad = try live(id)
        guard ad.format == .rewarded else {
            throw AdLifecycleError(.wrongFormat, "ad '\(id)' is a \(ad.format.rawValue) ad, not a rewarded one")
        }
        return ad
    }

    private func shownRewarded(_ id: String) throws(AdLifecycleError) -> LoadedAd {
        guard let ad = ads[id] else { throw AdLifecycleError(.unknownAd, "no ad '\(id)'") }
        guard ad.format == .rewarded else {
            throw AdLifecycleError(.wrongFormat, "ad '\(id)' is a \(ad.format.rawValue) ad, not a rewarded one")
        }
        guard ad.presentation.shown else { throw AdLifecycleError(.notShown, "ad '\(id)' has not been shown") }
        return ad
    }

    /// Queues an ad's trackers, their macros filled now.
    private func fire(_ urls: [String], of ad: LoadedAd, kind: TrackerQueue.Kind) {
        guard !urls.isEmpty else { return }
        services.trackers.enqueue(urls.map { ad.fill.ad.trackerMacros($0, nil) }, kind: kind)
    }

    private func publish(_ name: AdEvent.Name, _ ad: LoadedAd, _ fields: [String: EventField] = [:]) {
        metrics.count(name, unit: ad.unit.id)
        events.publish(AdEvent(name: name, adID: ad.id, adUnit: ad.unit.id, fields: fields))
    }

    /// How many of a unit's latest loads keep their ads while unused: forced loads that
    /// supersede one another do not pile up ads nobody will show.
    public static var unusedAdsKeptPerUnit: Int { 16 }

    /// One ad's time to leave the store: an hour after its expiry.
    private struct Drop: Comparable {
        var at: Duration
        var id: String

        static func < (lhs: Drop, rhs: Drop) -> Bool { lhs.at < rhs.at }
    }

    /// Stores a new ad, dropping the unit's oldest unused one beyond the latest
    /// `unusedAdsKeptPerUnit` (it answers `unknown_ad` from then on).
    private func keep(_ ad: LoadedAd) {
        ads[ad.id] = ad
        drops.insert(Drop(at: ad.expiresAt + .seconds(3600), id: ad.id))
        var queue = latest[ad.unit.id, default: []]
        queue.append(ad.id)
        while queue.count > Self.unusedAdsKeptPerUnit, let oldest = queue.popFirst() {
            if let old = ads[oldest], !old.isUsed { ads[oldest] = nil }
        }
        latest[ad.unit.id] = queue
        // Dropped ads leave their entries behind; rebuild before those outnumber the live ones.
        if drops.count > 2 * ads.count + 1024 {
            drops = Heap(ads.values.map { Drop(at: $0.expiresAt + .seconds(3600), id: $0.id) })
        }
    }

    /// Drops ads an hour past their expiry (until then they answer `ad_expired`); every new ad
    /// sweeps, in time proportional to what it drops.
    func sweep() {
        let now = self.now
        while let first = drops.min, first.at < now {
            drops.removeMin()
            ads[first.id] = nil
        }
    }

    /// How many ads the store holds, expired ones included.
    var storedAds: Int { ads.count }
}

/// A failed load: why, and the attempts the waterfall made (nil when none was made).
public struct AdLoadFailure: Error, Sendable {
    public var error: AdLoadError
    public var info: ResponseInfo?

    public init(_ error: AdLoadError, info: ResponseInfo?) {
        self.error = error
        self.info = info
    }
}
