import SharedTypes
import Timing

/// Frequency caps and pacing: each unit's impressions counted per app, durably, and a load
/// refused while the app is capped.
extension AdStore {
    /// Until when (wall-clock ms) app `app` may not load `unit` at `now`; nil when it may.
    func cappedUntil(_ unit: AdUnit, app: String?, now: Int64) -> Int64? {
        guard !unit.capping.isEmpty else { return nil }
        return unit.capping.cappedUntil(after: impressions.times(unit: unit.id, app: app), now: now)
    }

    /// Counts `ad`'s impression, seen by its app, when its unit has caps (as configured now,
    /// not when the ad loaded) and it is no test ad: at once in memory, then on disk before the
    /// call that recorded it answers. An impression that cannot be written still counts until the daemon stops or
    /// reloads, and the log says so.
    func countForCaps(_ ad: LoadedAd) async {
        let capping = units[ad.unit.id]?.capping ?? ad.unit.capping
        guard !capping.isEmpty, !ad.test else { return }
        let impression = CappedImpression(adUnit: ad.unit.id, app: ad.owner?.id, at: wallClock.nowMilliseconds)
        let horizon = capping.earliestCounted(at: impression.at)
        impressions.add(impression, forgettingBefore: horizon)
        for reload in countedDuringReload.keys { countedDuringReload[reload]?.append(impression) }
        let log = impressionLog
        do {
            // Not cancelled with the call: a client that hangs up still saw the ad.
            try await uncancelled { try await log.record(impression, forgettingBefore: horizon) }
        } catch {
            logger.error(
                "an impression a frequency cap counts could not be written to the state database; it counts until the daemon stops",
                metadata: ["ad_unit": "\(ad.unit.id)", "error": "\(error)"])
        }
    }

    /// Every unit, by id, as app `app` sees it now: its caps and how far it has come to each,
    /// its ready ad and its retry.
    public func unitStatuses(app: String?) -> [AdUnitStatus] {
        let now = wallClock.nowMilliseconds
        return units.values.sorted { $0.id < $1.id }.map { unit in
            let key = LoadKey(unit: unit.id, app: app)
            return AdUnitStatus(
                unit, times: impressions.times(unit: unit.id, app: app), until: cappedUntil(unit, app: app, now: now),
                now: now, ready: hasReadyAd(key), nextRetry: nextRetry(key))
        }
    }
}
