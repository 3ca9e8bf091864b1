import Consent
import FoundationEssentials
import SharedTypes
import Timing

/// Loads: through the unit's waterfall, joined while in flight, a ready ad handed out again
/// until used unless forced, and failed loads retried in the background with backoff; each
/// per unit and asking app (`request.app`), whose privacy state and frequency caps apply.
extension AdStore {
    public func load(_ request: AdLoadRequest) async -> LoadResult {
        guard var unit = units[request.adUnit] else {
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
        if let selector = request.lineItem {
            switch Self.alone(selector, of: unit) {
            case .success(let restricted): unit = restricted
            case .failure(let failure): return .failure(failure)
            }
        }
        let wallNow = wallClock.nowMilliseconds
        if !request.test, let until = cappedUntil(unit, app: request.app?.id, now: wallNow) {
            let wait = until - wallNow
            metrics.capped(unit: unit.id)
            let capped = LoadResult.failure(
                AdLoadFailure(
                    AdLoadError(
                        .frequencyCapped,
                        "ad unit '\(unit.id)' has reached its frequency cap or pacing for this app; try again in \(wait) ms"
                    ), info: nil, retryAfter: .milliseconds(wait)))
            if let tracer = services.tracer, tracer.isRecording {
                Self.trace(
                    request, to: tracer, startedAt: wallNow, duration: .zero,
                    privacy: policies.policy(for: request.app?.id, at: wallNow).summary,
                    tried: Waterfall.Tried(bidders: [], sources: []), retry: nil, result: capped)
            }
            return capped
        }
        let key = LoadKey(request)
        // Judged once: it asks the app's decisions now (`fits`).
        let ready = hasReadyAd(key)
        if !request.force, ready, let id = readyAd[key], let ad = ads[id] {
            return .success(ad.snapshot(now: now))
        }
        // A used, gone or no longer fitting ad is not the unit's ready one: forgotten, so that
        // apps coming and going leave nothing behind.
        if !ready { readyAd[key] = nil }
        if isLoading(key), let loading = inFlight[key] { return await loading.task.value }
        return await startLoad(unit, request).value
    }

    /// `retry`: the background retry's number, when it is one.
    func startLoad(_ unit: AdUnit, _ request: AdLoadRequest, retry: Int? = nil) -> Task<LoadResult, Never> {
        let waterfall = Waterfall(unit: unit, networks: networks, ledger: services.bids, clock: clock)
        let key = LoadKey(request)
        let startedAt = wallClock.nowMilliseconds
        let policy = policies.policy(for: key.app, at: startedAt)
        let tracer = services.tracer
        let decisions = LineItemDecisions(policy, units: [unit])
        loadsStarted += 1
        let number = loadsStarted
        let metrics = self.metrics
        let loadLog = self.loadLog
        let advertisingIDs = services.advertisingIDs
        // The id goes out only where an identifier may: zeros under limit-ad-tracking, and
        // wherever the app's state gives no basis for one (none set, a US opt-out, no TCF
        // purpose 1 where the GDPR applies).
        let identifierDenied = !policy.decide(ConsentRequirement(identifier: true)).isAllowed
        // Shared by every load of the unit for the app that joins it; ends with the waterfall,
        // which each line item's timeout bounds.
        let task = Task {
            let start = ContinuousClock.now
            var request = request
            if request.app?.may(.advertisingID) == true, let advertisingIDs {
                request.advertisingID = AdvertisingID.forLoad(
                    await advertisingIDs.current(), app: request.app, limitAdTracking: identifierDenied)
            }
            // Traced or not, decided once: a trace is left with the notices its load noted.
            let tracing = tracer.flatMap { $0.isRecording ? $0 : nil }
            let result = await waterfall.load(request, decisions: decisions, notices: tracing.map { _ in NoticeLog() })
            metrics.loaded(unit: unit.id, after: .now - start)
            metrics.networks.record(result.info)
            loadLog.record(unit: unit.id, app: request.app?.id, result)
            let loaded = await self.finishLoad(unit, request, result, policy: policy, number: number)
            if let tracing {
                Self.trace(
                    request, to: tracing, startedAt: startedAt, duration: .now - start, privacy: policy.summary,
                    tried: result.tried, retry: retry, result: loaded)
            }
            return loaded
        }
        inFlight[key] = (task, policy, number)
        return task
    }

    /// Whether app `id`'s privacy decisions are no longer those of `policy`.
    private func privacyChanged(for id: String?, since policy: ConsentPolicy) -> Bool {
        !policies.policy(for: id, at: wallClock.nowMilliseconds).decidesAlike(policy)
    }

    /// Stores what a load begun under `policy` filled, unless a change of its app's privacy
    /// state since means it could not be loaded so now.
    private func finishLoad(
        _ unit: AdUnit, _ request: AdLoadRequest, _ result: Result<Waterfall.Fill, Waterfall.Failure>,
        policy: ConsentPolicy, number: Int
    )
        async -> LoadResult
    {
        let key = LoadKey(request)
        // The load stays in flight (later loads join it) until its ad is stored, images and all.
        defer { if inFlight[key]?.number == number { inFlight[key] = nil } }
        let changed = { self.privacyChanged(for: key.app, since: policy) }
        // A later load for the same unit and app (begun under another privacy state) took this
        // one's place: this one's outcome leaves the unit's ready ad and retries to it.
        let superseded = { self.inFlight[key].map { $0.number != number } ?? false }
        if case .success(let fill) = result, changed(), !fits(fill, for: key.app) {
            return droppedForPrivacy(unit, request, fill, retrying: !superseded())
        }
        switch result {
        case .success(var fill):
            // Only the main image, unless the client asked for them all, whatever the network sent.
            if case .native(var native) = fill.ad.content, !request.preferences.multipleImages, native.images.count > 1
            {
                native.images = [native.images[0]]
                fill.ad.content = .native(native)
            }
            if !request.preferences.disableImageLoading {
                fill.ad.content = await AdImageLoader(fetcher: services.fetcher, logger: logger).load(fill.ad.content)
                // The privacy state may have changed while the images came.
                if changed(), !fits(fill, for: key.app) {
                    return droppedForPrivacy(unit, request, fill, retrying: !superseded())
                }
            }
            let bytes = fill.ad.byteCount
            let maximum = services.limits.maximumAdBytes
            if bytes > maximum {
                let error = AdLoadError(
                    .networkError,
                    "the \(fill.network) ad holds \(bytes) bytes, over limits.max_ad_bytes (\(maximum)): not kept")
                return refused(unit, request, fill, error, retrying: !superseded())
            }
            // The ad is kept: the bid it serves has won.
            services.bids.settle(fill.ad.bid, .won)
            if let mode = fill.info.servingMode { metrics.served(mode) }
            var ad = LoadedAd(
                id: UUID().uuidString.lowercased(), unit: unit, fill: fill, ssv: request.ssv,
                preferences: request.preferences, loadedAt: now, owner: request.app)
            ad.bytes = bytes
            ad.test = request.test
            ads.sweep(now: now)
            let displaced = ads.keep(ad, now: now)
            if displaced > 0 {
                metrics.displaced(displaced)
                logger.debug("the store is full: dropped unused ads", metadata: ["count": "\(displaced)"])
            }
            if request.test {
                // A test ad is the test load's alone: never the unit's ready ad.
            } else if !superseded() {
                readyAd[key] = ad.id
                retryAttempts[key] = nil
                if retries.removeValue(forKey: key) != nil { retryTimers.cancel(key) }
            } else if !hasReadyAd(key) {
                readyAd[key] = ad.id
            }
            publish(.loaded, ad, ["network": .string(fill.network)])
            return .success(ad.snapshot(now: now))
        case .failure(let failure):
            publishFailure(unit, request, failure.error)
            if !superseded() { scheduleRetry(unit, request) }
            return .failure(AdLoadFailure(failure.error, info: failure.info))
        }
    }

    /// A fill the privacy state, changed during its load, would not have loaded: not kept; the
    /// load fails as `no_fill` (published and counted), and is tried again under the new state
    /// as a failed load is.
    private func droppedForPrivacy(
        _ unit: AdUnit, _ request: AdLoadRequest, _ fill: Waterfall.Fill, retrying: Bool
    ) -> LoadResult {
        metrics.droppedForPrivacy(1)
        return refused(
            unit, request, fill,
            AdLoadError(.noFill, "the privacy state changed during the load, and what it loaded no longer fits"),
            retrying: retrying)
    }

    /// A fill that is not kept after all: the bid it serves lost, the load fails with
    /// `error` (published and counted), and is tried again as a failed load is (`retrying`:
    /// unless a later load took its place).
    private func refused(
        _ unit: AdUnit, _ request: AdLoadRequest, _ fill: Waterfall.Fill, _ error: AdLoadError, retrying: Bool
    ) -> LoadResult {
        services.bids.settle(fill.ad.bid, .lost(.internalError))
        publishFailure(unit, request, error)
        if retrying { scheduleRetry(unit, request) }
        return .failure(AdLoadFailure(error, info: fill.info))
    }

    /// `request`'s load failed with `error`: counted, and its `failed_to_load` event published
    /// (saying `"test": true` for a test load's).
    private func publishFailure(_ unit: AdUnit, _ request: AdLoadRequest, _ error: AdLoadError) {
        metrics.count(.failedToLoad, unit: unit.id)
        var fields: [String: EventField] = ["code": .string(error.code.rawValue), "message": .string(error.message)]
        if request.test { fields["test"] = .bool(true) }
        events.publish(AdEvent(name: .failedToLoad, adID: nil, adUnit: unit.id, app: request.app?.id, fields: fields))
    }

    /// `unit` with only the line items and bidders `selector` (`NETWORK:PARAMETER`) names; a
    /// selector that names none fails the load as `invalid_request`, listing what it may name.
    static func alone(_ selector: String, of unit: AdUnit) -> Result<AdUnit, AdLoadFailure> {
        // Named whole, or as the inspector shows it (an ad tag without its query) when that
        // names one parameter alone.
        let whole = { (item: LineItem) in "\(item.network):\(item.parameter)" == selector }
        let shown = { (item: LineItem) in "\(item.network):\(item.shownParameter)" == selector }
        let everything = unit.bidders + unit.waterfall
        let named = everything.contains(where: whole) ? whole : shown
        let parameters = Set(everything.filter(named).map(\.parameter))
        guard parameters.count <= 1 else {
            return .failure(
                AdLoadFailure(
                    AdLoadError(
                        .invalidRequest,
                        "line_item: '\(selector)' names \(parameters.count) sources of ad unit '\(unit.id)' whose ad tags differ in what the inspector leaves out; name one by its whole parameter"
                    ), info: nil))
        }
        var alone = unit
        alone.waterfall = unit.waterfall.filter(named)
        alone.bidders = unit.bidders.filter(named)
        guard alone.waterfall.isEmpty && alone.bidders.isEmpty else { return .success(alone) }
        let sources = everything.map { "\($0.network):\($0.shownParameter)" }
        return .failure(
            AdLoadFailure(
                AdLoadError(
                    .invalidRequest,
                    "line_item: ad unit '\(unit.id)' has no source '\(selector)'; it has \(sources.joined(separator: ", "))"
                ), info: nil))
    }

    /// Whether a load for `key` under its app's privacy state in force is under way (one begun
    /// under another state does not count: what it loads may not be kept).
    func isLoading(_ key: LoadKey) -> Bool {
        guard let loading = inFlight[key] else { return false }
        return !privacyChanged(for: key.app, since: loading.policy)
    }

    /// After a failed load, the pause before the next try: 2 s, doubling up to 64 s.
    static var retryBackoff: Backoff { Backoff(first: .seconds(2), maximum: .seconds(64)) }

    /// After a failed load: try again after `retryBackoff`, up to the unit's `max_retries`.
    private func scheduleRetry(_ unit: AdUnit, _ request: AdLoadRequest) {
        guard !request.test else { return }  // a developer's try, not the unit's supply
        let key = LoadKey(request)
        guard retries[key] == nil else { return }  // one is already waiting
        let attempt = (retryAttempts[key] ?? 0) + 1
        guard attempt <= unit.maxRetries else {
            retryAttempts[key] = nil
            return
        }
        retryAttempts[key] = attempt
        let delay = Self.retryBackoff.delay(afterFailures: attempt)
        logger.info(
            "ad load failed; retrying",
            metadata: [
                "ad_unit": "\(unit.id)", "app": "\(key.app ?? "-")", "attempt": "\(attempt)", "in_s": "\(delay)",
            ])
        let clock = self.clock
        let due = clock.now.advanced(by: delay)
        // Cancelled by its unit's removal at a reload, or by the stop; else ends with its load.
        retryTimers.start(key) {
            do {
                try await clock.sleep(until: due, tolerance: nil)
            } catch {
                return
            }
            await self.retry(unit, request)
        }
        retries[key] = due
    }

    private func retry(_ unit: AdUnit, _ request: AdLoadRequest) async {
        let key = LoadKey(request)
        retries[key] = nil
        guard !isLoading(key), !hasReadyAd(key) else { return }
        _ = await startLoad(unit, request, retry: retryAttempts[key]).value
    }

    /// How long until `key`'s failed load is tried again, when a retry is waiting.
    func nextRetry(_ key: LoadKey) -> Duration? {
        retries[key].map { max(.zero, clock.now.duration(to: $0)) }
    }

    /// Whether `key` has an ad a load would hand out now: unused, unexpired, and still what its
    /// app's decisions load (its consent may have expired with time since, with no new state:
    /// then it is no longer ready, for the status, preloads and retries alike).
    func hasReadyAd(_ key: LoadKey) -> Bool {
        guard let id = readyAd[key], let ad = ads[id] else { return false }
        return !ad.isUsed && ad.expiresAt > now && fits(ad.fill, for: key.app)
    }

    /// The background retry of `unit` for app `app`, if one is waiting: its attempt number.
    public func pendingRetry(of unit: String, app: String? = nil) -> Int? {
        let key = LoadKey(unit: unit, app: app)
        return retries[key] == nil ? nil : retryAttempts[key]
    }
}
