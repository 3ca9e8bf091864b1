import Foundation
import SharedTypes
import Timing

/// Loads: through the unit's waterfall, joined while in flight, a ready ad handed out again
/// until used unless forced, and failed loads retried in the background with backoff.
extension AdStore {
    /// `uid`: the app asking (its peer uid), whose frequency caps apply.
    public func load(_ request: AdLoadRequest, uid: UInt32? = nil) async -> LoadResult {
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
        let wallNow = wallClock.nowMilliseconds
        if let until = cappedUntil(unit, uid: uid, now: wallNow) {
            let wait = until - wallNow
            metrics.capped(unit: unit.id)
            return .failure(
                AdLoadFailure(
                    AdLoadError(
                        .frequencyCapped,
                        "ad unit '\(unit.id)' has reached its frequency cap or pacing for this app; try again in \(wait) ms"
                    ), info: nil, retryAfter: .milliseconds(wait)))
        }
        if !request.force, hasReadyAd(unit.id), let id = readyAd[unit.id], let ad = ads[id] {
            return .success(ad.snapshot(now: now))
        }
        if isLoading(unit.id), let loading = inFlight[unit.id] { return await loading.task.value }
        return await startLoad(unit, request).value
    }

    func startLoad(_ unit: AdUnit, _ request: AdLoadRequest) -> Task<LoadResult, Never> {
        let waterfall = Waterfall(unit: unit, networks: networks, ledger: services.bids, clock: clock)
        let decisions = self.decisions
        let metrics = self.metrics
        let privacy = privacyChanges
        // Shared by every load of the unit that joins it; ends with the waterfall, which each
        // line item's timeout bounds.
        let task = Task {
            let start = ContinuousClock.now
            let result = await waterfall.load(request, decisions: decisions)
            metrics.loaded(unit: unit.id, after: .now - start)
            return await self.finishLoad(unit, request, result, privacy: privacy)
        }
        inFlight[unit.id] = (task, privacy)
        return task
    }

    /// Stores what a load begun after privacy change `privacy` filled, unless a change since
    /// means it could not be loaded so now.
    private func finishLoad(
        _ unit: AdUnit, _ request: AdLoadRequest, _ result: Result<Waterfall.Fill, Waterfall.Failure>, privacy: Int
    )
        async -> LoadResult
    {
        // The load stays in flight (later loads join it) until its ad is stored, images and all.
        defer { if inFlight[unit.id]?.privacy == privacy { inFlight[unit.id] = nil } }
        if case .success(let fill) = result, privacyChanges != privacy, !fits(fill) {
            return droppedForPrivacy(unit, request, fill)
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
                if privacyChanges != privacy, !fits(fill) { return droppedForPrivacy(unit, request, fill) }
            }
            let bytes = fill.ad.byteCount
            let maximum = services.limits.maximumAdBytes
            if bytes > maximum {
                let error = AdLoadError(
                    .networkError,
                    "the \(fill.network) ad holds \(bytes) bytes, over limits.max_ad_bytes (\(maximum)): not kept")
                return refused(unit, request, fill, error)
            }
            // The ad is kept: the bid it serves has won.
            services.bids.settle(fill.ad.bid, .won)
            if let mode = fill.info.servingMode { metrics.served(mode) }
            var ad = LoadedAd(
                id: UUID().uuidString.lowercased(), unit: unit, fill: fill, ssv: request.ssv,
                preferences: request.preferences, loadedAt: now)
            ad.bytes = bytes
            ads.sweep(now: now)
            let displaced = ads.keep(ad, now: now)
            if displaced > 0 {
                metrics.displaced(displaced)
                logger.debug("the store is full: dropped unused ads", metadata: ["count": "\(displaced)"])
            }
            readyAd[unit.id] = ad.id
            retryAttempts[unit.id] = 0
            if retries.removeValue(forKey: unit.id) != nil { retryTimers.cancel(unit.id) }
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

    /// A fill the privacy state, changed during its load, would not have loaded: not kept; the
    /// load fails as `no_fill` (published and counted), and is tried again under the new state
    /// as a failed load is.
    private func droppedForPrivacy(_ unit: AdUnit, _ request: AdLoadRequest, _ fill: Waterfall.Fill) -> LoadResult {
        metrics.droppedForPrivacy(1)
        return refused(
            unit, request, fill,
            AdLoadError(.noFill, "the privacy state changed during the load, and what it loaded no longer fits"))
    }

    /// A fill that is not kept after all: the bid it serves lost, the load fails with
    /// `error` (published and counted), and is tried again as a failed load is.
    private func refused(_ unit: AdUnit, _ request: AdLoadRequest, _ fill: Waterfall.Fill, _ error: AdLoadError)
        -> LoadResult
    {
        services.bids.settle(fill.ad.bid, .lost(.internalError))
        metrics.count(.failedToLoad, unit: unit.id)
        events.publish(
            AdEvent(
                name: .failedToLoad, adID: nil, adUnit: unit.id,
                fields: ["code": .string(error.code.rawValue), "message": .string(error.message)]))
        scheduleRetry(unit, request)
        return .failure(AdLoadFailure(error, info: fill.info))
    }

    /// Whether a load of `unit` under the privacy state in force is under way (one begun
    /// under an older state does not count: what it loads may not be kept).
    func isLoading(_ unit: String) -> Bool {
        inFlight[unit]?.privacy == privacyChanges
    }

    /// After a failed load, the pause before the next try: 2 s, doubling up to 64 s.
    static var retryBackoff: Backoff { Backoff(first: .seconds(2), maximum: .seconds(64)) }

    /// After a failed load: try again after `retryBackoff`, up to the unit's `max_retries`.
    private func scheduleRetry(_ unit: AdUnit, _ request: AdLoadRequest) {
        guard retries[unit.id] == nil else { return }  // one is already waiting
        let attempt = (retryAttempts[unit.id] ?? 0) + 1
        guard attempt <= unit.maxRetries else {
            retryAttempts[unit.id] = 0
            return
        }
        retryAttempts[unit.id] = attempt
        let delay = Self.retryBackoff.delay(afterFailures: attempt)
        logger.info(
            "ad load failed; retrying",
            metadata: ["ad_unit": "\(unit.id)", "attempt": "\(attempt)", "in_s": "\(delay)"])
        let clock = self.clock
        let due = clock.now.advanced(by: delay)
        // Cancelled by its unit's removal at a reload, or by the stop; else ends with its load.
        retryTimers.start(unit.id) {
            do {
                try await clock.sleep(until: due, tolerance: nil)
            } catch {
                return
            }
            await self.retry(unit, request)
        }
        retries[unit.id] = due
    }

    private func retry(_ unit: AdUnit, _ request: AdLoadRequest) async {
        retries[unit.id] = nil
        guard !isLoading(unit.id), !hasReadyAd(unit.id) else { return }
        _ = await startLoad(unit, request).value
    }

    /// How long until `unit`'s failed load is tried again, when a retry is waiting.
    func nextRetry(_ unit: String) -> Duration? {
        retries[unit].map { max(.zero, clock.now.duration(to: $0)) }
    }

    /// Whether `unit` has an ad a load would hand out now.
    func hasReadyAd(_ unit: String) -> Bool {
        guard let id = readyAd[unit], let ad = ads[id] else { return false }
        return !ad.isUsed && ad.expiresAt > now
    }

    /// The background retry of `unit`, if one is waiting: its attempt number.
    public func pendingRetry(of unit: String) -> Int? {
        retries[unit] == nil ? nil : retryAttempts[unit]
    }
}
