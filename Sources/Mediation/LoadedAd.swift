import FoundationEssentials
import SharedTypes

/// A loaded ad and everything that has happened to it; the store owns it.
struct LoadedAd: Sendable {
    let id: String
    let unit: AdUnit
    let fill: Waterfall.Fill
    let ssv: ServerSideVerification?
    let preferences: NativeAdPreferences
    /// On the store's clock.
    let loadedAt: Duration
    /// The app it was loaded for (nil for the core alone): it alone may act on it.
    let owner: AppIdentity?
    /// What it holds (`NetworkAd.byteCount`), counted once when the store keeps it.
    var bytes = 0
    /// A test load's ad: counted toward no cap, billed to nobody.
    var test = false
    var impressionRecorded = false
    var clickRecorded = false
    var presentation = RewardedPresentation()
    /// The progress marks whose trackers have been fired.
    var trackedProgress: Set<VideoProgress> = []
    /// Whether the client reported that it could not play the ad.
    var playbackFailed = false
    /// The app that showed it (its owner): whose reward it earns.
    var shownBy: String?
    /// What the network reported that could not be applied (its reward could not be committed):
    /// applied first at the next lifecycle call, since the network does not report it twice.
    var unappliedNetworkEvents: [NetworkPresentationEvent] = []

    var format: AdFormat { unit.format }

    /// Whether app `asker` may see the ad: its owner, or an app with `inspect` (any app when
    /// either is unknown: the core alone).
    func isVisible(to asker: AppIdentity?) -> Bool {
        guard let asker, let owner else { return true }
        return owner.id == asker.id || asker.may(.inspect)
    }

    /// Whether app `asker` may act on the ad (show, click, dismiss...): its owner alone.
    func isOwned(by asker: AppIdentity?) -> Bool {
        guard let asker, let owner else { return true }
        return owner.id == asker.id
    }
    /// The unit's expiry, or the network's if that is sooner.
    var expiresAt: Duration { loadedAt + min(unit.expiry, fill.ad.expiry ?? unit.expiry) }

    /// Used: a native ad once its impression is recorded, a rewarded ad once shown. A used ad
    /// is not handed to the next load.
    var isUsed: Bool { format == .native ? impressionRecorded : presentation.shown }

    /// A rewarded ad shown and not yet dismissed: its reward may still come.
    var isBeingShown: Bool { format == .rewarded && presentation.shown && !presentation.dismissed }

    func snapshot(now: Duration) -> MediatedAd {
        let remaining = expiresAt - now
        let wall = Date().addingTimeInterval(
            Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18)
        var ad = MediatedAd(
            adID: id, adUnit: unit.id, format: format, responseInfo: fill.info,
            expiresAt: wall.formatted(.iso8601), native: nil, customNative: nil, reward: nil, video: fill.ad.video,
            test: test ? true : nil)
        switch fill.ad.content {
        case .native(let native): ad.native = native
        case .customNative(let custom): ad.customNative = custom
        case .rewarded(let reward): ad.reward = reward
        }
        return ad
    }

    /// The trackers a first report of `progress` fires: its own, and those of every earlier
    /// mark the client did not report (a player that reports only `complete` still owes the
    /// quartiles), each mark once; the marks it fired.
    func progressTrackers(for progress: VideoProgress) -> (urls: [String], marks: [VideoProgress]) {
        let order: [VideoProgress] = [.start, .firstQuartile, .midpoint, .thirdQuartile, .complete]
        let due = order.firstIndex(of: progress).map { Array(order[...$0]) } ?? [progress]
        let marks = due.filter { !trackedProgress.contains($0) }
        return (marks.flatMap { fill.ad.progressTrackers[$0] ?? [] }, marks)
    }

    /// Where a click leads: the client's own handling if it asked, else the first deep link
    /// whose scheme it can open, else the destination URL.
    func clickAction(asset: String?) -> LifecycleOutcome.ClickAction {
        if preferences.customClickHandling { return .init(type: .custom, url: fill.ad.clickDestination, asset: asset) }
        for link in fill.ad.deepLinks {
            guard let scheme = link.split(separator: ":", maxSplits: 1).first.map(String.init)?.lowercased() else {
                continue
            }
            if preferences.openableSchemes.contains(where: { $0.lowercased() == scheme }) {
                return .init(type: .deepLink, url: link, asset: asset)
            }
        }
        return .init(type: .url, url: fill.ad.clickDestination, asset: asset)
    }
}
