import FoundationEssentials
import SharedTypes

/// Each ad's lifecycle: impressions and clicks counted once, a rewarded ad shown once with its
/// events in order (the reward always before the dismiss), and the trackers each step owes.
/// Each call names the asking app (`by`): another app's ad is unknown to it (an app with
/// `inspect` sees it, and may not act on it); nil for the core alone.
extension AdStore {
    public func ad(_ id: String, by asker: AppIdentity? = nil) throws(AdLifecycleError) -> MediatedAd {
        ads.sweep(now: now)
        return try unexpired(visible(id, to: asker)).snapshot(now: now)
    }

    /// The ad, if `asker` may see it.
    private func visible(_ id: String, to asker: AppIdentity?) throws(AdLifecycleError) -> LoadedAd {
        guard let ad = ads[id], ad.isVisible(to: asker) else { throw AdLifecycleError(.unknownAd, "no ad '\(id)'") }
        return ad
    }

    /// The ad, if `asker` may act on it (its own).
    private func owned(_ id: String, by asker: AppIdentity?) throws(AdLifecycleError) -> LoadedAd {
        let ad = try visible(id, to: asker)
        guard ad.isOwned(by: asker) else {
            throw AdLifecycleError(.notPermitted, "ad '\(id)' is another app's: only that app may act on it")
        }
        return ad
    }

    /// The ad, if it exists, is `asker`'s and has not expired. Ads whose time to leave has come
    /// (a minute after a dismiss, an hour after expiry) are gone first, loads or not.
    private func live(_ id: String, by asker: AppIdentity?) throws(AdLifecycleError) -> LoadedAd {
        ads.sweep(now: now)
        return try unexpired(owned(id, by: asker))
    }

    private func unexpired(_ ad: LoadedAd) throws(AdLifecycleError) -> LoadedAd {
        let id = ad.id
        guard ad.expiresAt > now else {
            throw AdLifecycleError(.adExpired, "ad '\(id)' expired; load another")
        }
        return ad
    }

    /// Records the ad's impression once; its app's frequency caps count it.
    public func impression(_ id: String, by asker: AppIdentity? = nil) async throws(AdLifecycleError)
        -> LifecycleOutcome
    {
        var ad = try live(id, by: asker)
        guard !ad.impressionRecorded else { return .duplicate }
        ad.impressionRecorded = true
        ads.update(ad)
        recordImpression(ad)
        await countForCaps(ad)
        return .recorded
    }

    private func recordImpression(_ ad: LoadedAd) {
        publish(.impression, ad)
        if !ad.test, let value = ad.fill.ad.value {
            publish(
                .paid, ad,
                [
                    "value_micros": .integer(value.valueMicros), "currency": .string(value.currency),
                    "precision": .string(value.precision),
                ])
        }
        guard !ad.fill.tracksItself else { return }
        fire(ad.fill.ad.impressionTrackers, of: ad, kind: .impression)
        // A test ad's billing is owed to nobody: it is dropped, never sent.
        if ad.test { return services.bids.adLeft(ad.fill.ad.bid) }
        services.bids.bill(ad.fill.ad.bid) { ad.fill.ad.trackerMacros($0, nil) }
    }

    public func click(_ id: String, asset: String?, by asker: AppIdentity? = nil) throws(AdLifecycleError)
        -> LifecycleOutcome
    {
        var ad = try live(id, by: asker)
        let action = ad.clickAction(asset: asset)
        guard !ad.clickRecorded else {
            return LifecycleOutcome(recorded: false, reason: "duplicate", action: action)
        }
        ad.clickRecorded = true
        ads.update(ad)
        var fields: [String: EventField] = ["action": .string(action.type.rawValue)]
        if let asset { fields["asset"] = .string(asset) }
        publish(.click, ad, fields)
        if !ad.fill.tracksItself { fire(ad.fill.ad.clickTrackers, of: ad, kind: .click) }
        return LifecycleOutcome(recorded: true, reason: nil, action: action)
    }

    /// Shows a rewarded ad once: its reward is its app's, whose frequency caps count its
    /// impression.
    public func show(_ id: String, by asker: AppIdentity? = nil) async throws(AdLifecycleError) -> LifecycleOutcome {
        var ad: LoadedAd
        do {
            ad = try rewarded(id, by: asker)
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
        ad.shownBy = ad.owner?.id ?? asker?.id
        publish(.willPresent, ad)
        let firstImpression = !ad.impressionRecorded
        if firstImpression {
            ad.impressionRecorded = true
            recordImpression(ad)
        }
        ads.update(ad)
        if firstImpression { await countForCaps(ad) }
        return .recorded
    }

    public func progress(_ id: String, _ progress: VideoProgress, by asker: AppIdentity? = nil)
        async throws(AdLifecycleError) -> LifecycleOutcome
    {
        let ad = try undismissed(shownRewarded(id, by: asker))
        // The client's event counts now, before the network is asked: a dismiss that comes
        // meanwhile must find a completed video completed.
        let outcome = try await apply([.progress(progress)], to: id)
        if outcome.recorded, var current = ads[id], !current.fill.tracksItself {
            let (urls, marks) = current.progressTrackers(for: progress)
            current.trackedProgress.formUnion(marks)
            ads.update(current)
            fire(urls, of: current, kind: .progress)
        }
        let reported = await ad.fill.ad.presentation?.events(after: progress) ?? []
        if !reported.isEmpty { _ = try await apply([], reported: reported, to: id) }
        return outcome
    }

    /// The client could not play a shown rewarded ad (VAST error `code`, e.g. 405): its error
    /// trackers fire once with the code, and `failed_to_present` is published; a repeat does
    /// nothing. The ad stays shown: dismiss it as usual.
    public func playbackError(_ id: String, code: Int, by asker: AppIdentity? = nil) throws(AdLifecycleError)
        -> LifecycleOutcome
    {
        var ad = try undismissed(shownRewarded(id, by: asker))
        guard !ad.playbackFailed else { return .duplicate }
        ad.playbackFailed = true
        ads.update(ad)
        publish(.failedToPresent, ad, ["code": .string("playback_error"), "vast_error": .integer(Int64(code))])
        if !ad.fill.tracksItself, !ad.fill.ad.errorTrackers.isEmpty {
            services.trackers.enqueue(ad.fill.ad.errorTrackers.map { ad.fill.ad.trackerMacros($0, code) }, kind: .error)
        }
        return .recorded
    }

    public func dismiss(_ id: String, by asker: AppIdentity? = nil) async throws(AdLifecycleError)
        -> LifecycleOutcome
    {
        let ad = try shownRewarded(id, by: asker)
        guard !ad.presentation.dismissed else { return .duplicate }
        let outcome = try await apply([.dismiss], to: id)
        if outcome.recorded, !ad.fill.tracksItself { fire(ad.fill.ad.dismissTrackers, of: ad, kind: .progress) }
        return outcome
    }

    /// After a dismiss (the client's or the network's): the next ad, when the unit (as
    /// configured now) preloads; a test ad's dismiss preloads nothing.
    private func preloadAfterDismiss(_ ad: LoadedAd) {
        guard !ad.test, let unit = units[ad.unit.id] else { return }
        let request = AdLoadRequest(adUnit: unit.id, format: ad.format, ssv: ad.ssv, app: ad.owner)
        guard unit.preload, !isLoading(LoadKey(request)), !hasReadyAd(LoadKey(request)) else { return }
        _ = startLoad(unit, request)
    }

    private static func input(_ event: NetworkPresentationEvent) -> RewardedPresentation.Input {
        switch event {
        case .rewardEarned: return .networkReward
        case .dismissed: return .dismiss
        }
    }

    /// Moves the ad's presentation by what the network reported before and could not be
    /// applied, the client's `inputs`, then what the network `reported` now; publishes their
    /// events in order. A reward is committed before anything changes: when it cannot be, the
    /// ad stays as it was (a retry can still earn it; what the network reported is kept for the
    /// next call), nothing is published, and the call answers 503. While the reward is being
    /// committed the ad's other presentation calls wait (`rewardCommits`); other ads do not.
    private func apply(
        _ inputs: [RewardedPresentation.Input], reported: [NetworkPresentationEvent] = [], to id: String
    ) async throws(AdLifecycleError) -> LifecycleOutcome {
        await rewardCommitted(id)
        var committing = false
        // The ad's waiting calls go on once its events are published.
        defer { if committing { rewardCommitEnded(id) } }
        guard var ad = ads[id] else { return .duplicate }
        let network = ad.unappliedNetworkEvents + reported
        let (names, repeated) = ad.presentation.apply(
            ad.unappliedNetworkEvents.map(Self.input) + inputs + reported.map(Self.input))
        var transaction: String?
        if names.contains(.rewardEarned), case .rewarded(let reward) = ad.fill.ad.content {
            rewardCommits[id] = []
            committing = true
            do {
                transaction = try await record(reward, of: ad)
            } catch {
                if !reported.isEmpty, var unchanged = ads[id] {
                    unchanged.unappliedNetworkEvents = network
                    ads.update(unchanged)
                }
                throw error
            }
            // What else changed meanwhile (an impression, a click) is kept; an ad gone meanwhile
            // (expired) still tells its reward.
            guard var current = ads[id] else {
                for name in names { publish(name, ad, rewardFields(name, ad, transaction)) }
                return repeated ? .duplicate : .recorded
            }
            current.presentation = ad.presentation
            ad = current
        }
        ad.unappliedNetworkEvents = []
        ads.update(ad)
        for name in names { publish(name, ad, rewardFields(name, ad, transaction)) }
        if names.contains(.dismissed) {
            ads.dismissed(id, now: now)
            preloadAfterDismiss(ad)
        }
        return repeated ? .duplicate : .recorded
    }

    /// The fields of `name`'s event: a reward's type, amount, transaction and SSV values.
    private func rewardFields(_ name: AdEvent.Name, _ ad: LoadedAd, _ transaction: String?) -> [String: EventField] {
        var fields: [String: EventField] = [:]
        guard name == .rewardEarned else { return fields }
        if case .rewarded(let reward) = ad.fill.ad.content {
            fields["reward"] = .object(["type": .string(reward.type), "amount": .number(reward.amount)])
            fields["transaction_id"] = transaction.map(EventField.string) ?? .null
        }
        if let ssv = ad.ssv, ssv.customData != nil || ssv.userID != nil {
            var object: [String: EventField] = [:]
            if let data = ssv.customData { object["custom_data"] = .string(data) }
            if let user = ssv.userID { object["user_id"] = .string(user) }
            fields["ssv"] = .object(object)
        }
        return fields
    }

    /// Waits while ad `id`'s reward is being committed.
    private func rewardCommitted(_ id: String) async {
        while rewardCommits[id] != nil {
            await withCheckedContinuation { rewardCommits[id, default: []].append($0) }
        }
    }

    /// Ad `id`'s reward commit ended: its waiting calls go on, one after another.
    private func rewardCommitEnded(_ id: String) {
        for waiter in rewardCommits.removeValue(forKey: id) ?? [] { waiter.resume() }
    }

    /// Commits `reward`, earned by `ad`, to the ledger before its event is published, with its
    /// SSV callback (when the unit has one) in the same transaction; answers its transaction id.
    private func record(_ reward: Reward, of ad: LoadedAd) async throws(AdLifecycleError) -> String {
        let earned = EarnedReward(
            transactionID: UUID().uuidString.lowercased(), adID: ad.id, adUnit: ad.unit.id, rewardType: reward.type,
            rewardAmount: reward.amount, customData: ad.ssv?.customData, userID: ad.ssv?.userID, app: ad.shownBy,
            earnedAt: wallClock.nowMilliseconds)
        // A test ad's reward is earned and claimable, but the publisher's server is not told:
        // it would grant real currency.
        let url = ad.test ? nil : ad.unit.ssvCallbackURL
        let callback = url.flatMap { callbackSigner?.callbackURL($0, for: earned, adNetwork: ad.fill.network) }
        do {
            if let owed = try await rewards.record(earned, callback: callback) { services.trackers.adopt(owed) }
        } catch {
            logger.error(
                "an earned reward could not be recorded in the state database",
                metadata: ["transaction_id": "\(earned.transactionID)", "error": "\(error)"])
            throw AdLifecycleError(
                .stateUnavailable, "the reward could not be recorded in the state database; see the daemon's log")
        }
        return earned.transactionID
    }

    private func rewarded(_ id: String, by asker: AppIdentity?) throws(AdLifecycleError) -> LoadedAd {
        let ad = try live(id, by: asker)
        guard ad.format == .rewarded else {
            throw AdLifecycleError(.wrongFormat, "ad '\(id)' is a \(ad.format.rawValue) ad, not a rewarded one")
        }
        return ad
    }

    private func shownRewarded(_ id: String, by asker: AppIdentity?) throws(AdLifecycleError) -> LoadedAd {
        let ad = try owned(id, by: asker)
        guard ad.format == .rewarded else {
            throw AdLifecycleError(.wrongFormat, "ad '\(id)' is a \(ad.format.rawValue) ad, not a rewarded one")
        }
        guard ad.presentation.shown else { throw AdLifecycleError(.notShown, "ad '\(id)' has not been shown") }
        return ad
    }

    /// `ad`, unless it was dismissed: after the dismiss nothing more is recorded for it.
    private func undismissed(_ ad: LoadedAd) throws(AdLifecycleError) -> LoadedAd {
        guard !ad.presentation.dismissed else {
            throw AdLifecycleError(.adAlreadyDismissed, "ad '\(ad.id)' was dismissed; nothing more is recorded for it")
        }
        return ad
    }
}
