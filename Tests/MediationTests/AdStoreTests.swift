import Adapters
import Foundation
import Logging
import SecureSignals
import SharedTypes
import StateStore
import Synchronization
import TestSupport
import Testing
import Timing

@testable import Mediation

/// Fetches nothing: these tests' ads carry their images, and their trackers are tested
/// through the daemon against a real local HTTP server.
struct NoFetcher: AdFetcher {
    func send(_ request: AdServerRequest) async throws(AdServerError) -> AdServerResponse {
        throw AdServerError(.transport, "these tests reach no ad server")
    }
}

extension AdNetworkServices {
    /// Services that reach no ad server.
    static var offline: AdNetworkServices {
        AdNetworkServices(
            fetcher: NoFetcher(),
            trackers: TrackerQueue(
                fetcher: NoFetcher(), outbox: SQLiteTrackerOutbox(StateDatabase()),
                clock: WallClock(clock: ContinuousClock()), logger: Logger(label: "test")
            ).started())
    }
}

/// The ad store with the test network, on a clock the test moves.
struct AdStoreTests {
    static let rewarded = TestAdNetwork.rewardedUnit
    static let native = TestAdNetwork.nativeUnit

    func store(
        _ units: [AdUnit], clock: ManualClock = ManualClock(),
        rewards: any RewardLedger = SQLiteRewardLedger(StateDatabase()), logger: Logger = Logger(label: "test")
    ) async throws -> AdStore<ManualClock> {
        try await AdStore(
            units: units, networks: [AdNetworkConfiguration(name: "test")], registry: BuiltinAdNetworks.registry,
            services: .offline, rewards: rewards, impressions: SQLiteImpressionLog(StateDatabase()), clock: clock,
            logger: logger)
    }

    /// The SQLite ledger, made to fail while `failing` is set.
    final class FlakyLedger: RewardLedger {
        let real = SQLiteRewardLedger(StateDatabase())
        let failing = Mutex(false)

        struct DiskFull: Error {}

        func record(_ reward: EarnedReward, callback: String?) async throws -> OwedPing? {
            if failing.withLock({ $0 }) { throw DiskFull() }
            return try await real.record(reward, callback: callback)
        }

        func rewards(app: String?, state: RewardState, now: Int64) async throws -> [EarnedReward] {
            try await real.rewards(app: app, state: state, now: now)
        }

        func claim(_ transactionID: String, app: String?, now: Int64) async throws -> RewardClaim {
            try await real.claim(transactionID, app: app, now: now)
        }
    }

    @Test func aRewardThatCannotBeCommittedChangesNothingAndARetryEarnsIt() async throws {
        let ledger = FlakyLedger()
        let store = try await store(
            [AdUnit(id: "u", format: .rewarded, waterfall: [item(Self.rewarded)])], rewards: ledger)
        let stream = events(store.events)
        let ad = try await store.load(AdLoadRequest(adUnit: "u", format: .rewarded)).get()
        _ = try await store.show(ad.adID)
        ledger.failing.withLock { $0 = true }
        let refused = await #expect(throws: AdLifecycleError.self) { try await store.progress(ad.adID, .complete) }
        #expect(refused?.code == .stateUnavailable)
        ledger.failing.withLock { $0 = false }
        #expect(try await store.progress(ad.adID, .complete) == .recorded, "not a duplicate: nothing had changed")
        _ = try await store.dismiss(ad.adID)
        var seen: [AdEvent] = []
        for await event in stream {
            seen.append(event)
            if event.name == .dismissed { break }
        }
        #expect(
            seen.map(\.name) == [.loaded, .willPresent, .impression, .paid, .videoComplete, .rewardEarned, .dismissed])
        let kept = try await ledger.rewards(app: nil, state: .all, now: Int64(Date().timeIntervalSince1970 * 1000))
        #expect(kept.count == 1)
        #expect(
            seen.first { $0.name == .rewardEarned }?.fields["transaction_id"]
                == .string(kept.first?.transactionID ?? ""))
    }

    @Test func aRewardTheNetworkGrantsThatCannotBeCommittedIsKeptForTheNextCall() async throws {
        let ledger = FlakyLedger()
        let store = try await store(
            [
                AdUnit(
                    id: "u", format: .rewarded,
                    waterfall: [item(Self.rewarded, ["behavior": .string("reward_at_midpoint")])])
            ], rewards: ledger)
        let stream = events(store.events)
        let ad = try await store.load(AdLoadRequest(adUnit: "u", format: .rewarded)).get()
        _ = try await store.show(ad.adID)
        ledger.failing.withLock { $0 = true }
        // The client's midpoint counts; the reward the network grants with it cannot be kept.
        let refused = await #expect(throws: AdLifecycleError.self) { try await store.progress(ad.adID, .midpoint) }
        #expect(refused?.code == .stateUnavailable)
        ledger.failing.withLock { $0 = false }
        // The network does not grant it twice; the next call (here the dismiss) records it first.
        #expect(try await store.dismiss(ad.adID) == .recorded)
        var seen: [AdEvent] = []
        for await event in stream {
            seen.append(event)
            if event.name == .dismissed { break }
        }
        #expect(seen.map(\.name) == [.loaded, .willPresent, .impression, .paid, .rewardEarned, .dismissed])
        let kept = try await ledger.rewards(app: nil, state: .all, now: Int64(Date().timeIntervalSince1970 * 1000))
        #expect(kept.count == 1)
    }

    func item(_ parameter: String, _ options: [String: JSONValue] = [:], timeout: Duration = .seconds(2)) throws
        -> LineItem
    {
        LineItem(
            network: "test", parameter: parameter, timeout: timeout,
            options: try TestAdNetwork.decodeLineItemOptions(options))
    }

    /// Collects events from `hub` until `count` have come (or 5 s pass).
    func events(_ hub: EventHub, _ filter: EventHub.Filter = EventHub.Filter()) -> AsyncStream<AdEvent> {
        hub.subscribe(filter)
    }

    @Test func theWaterfallTriesEachLineItemAndReportsEveryAttempt() async throws {
        let unit = try AdUnit(
            id: "u", format: .native,
            waterfall: [
                item(Self.native, ["behavior": .string("error")]),
                item(Self.native, ["behavior": .string("hang")], timeout: .milliseconds(100)),
                item("/nowhere"),
                item(Self.native),
            ])
        // The hanging line item's 100 ms are the store's clock's.
        let clock = ManualClock()
        let store = try await store([unit], clock: clock)
        let loading = Task { await store.load(AdLoadRequest(adUnit: "u", format: .native)) }
        try await waitUntil { clock.wakeTimes.contains(.milliseconds(100)) }
        clock.advance(by: .milliseconds(100))
        let ad = try await loading.value.get()
        try #require(ad.responseInfo.attempts.map(\.outcome) == [.error, .timeout, .noFill, .filled])
        #expect(ad.responseInfo.network == "test")
        #expect(ad.responseInfo.attempts[1].latencyMilliseconds == 100)
        #expect(ad.native?.headline.hasPrefix("Test Ad") == true)
    }

    /// A network that reports its own timeout (an OpenRTB bidder slower than its `timeout_ms`)
    /// is a `timeout` attempt, as the line item's time running out is.
    @Test func aNetworksOwnTimeoutIsATimeoutAttempt() async throws {
        let unit = try AdUnit(
            id: "u", format: .native,
            waterfall: [item(Self.native, ["behavior": .string("timeout")]), item(Self.native)])
        let ad = try await (try await store([unit])).load(AdLoadRequest(adUnit: "u", format: .native)).get()
        try #require(ad.responseInfo.attempts.map(\.outcome) == [.timeout, .filled])
        #expect(ad.responseInfo.attempts[0].message == "the test network's ad server did not answer in time")
        let alone = try AdUnit(
            id: "v", format: .native, waterfall: [item(Self.native, ["behavior": .string("timeout")])])
        let result = await (try await store([alone])).load(AdLoadRequest(adUnit: "v", format: .native))
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.error.code == .timeout && failure.info?.attempts.map(\.outcome) == [.timeout])
    }

    /// A failed load, and a line item that failed before another filled, are said at `info`
    /// with the unit, the app and each failed source, once per unit in 10 s; every load at `debug`.
    @Test func failedLoadsAndSourcesAreLoggedOncePerUnitInTenSeconds() async throws {
        let log = CapturedLog()
        let clock = ManualClock()
        let units = [
            try AdUnit(
                id: "u", format: .native,
                waterfall: [item(Self.native, ["behavior": .string("error")]), item(Self.native)]),
            try AdUnit(id: "v", format: .native, waterfall: [item(Self.native, ["behavior": .string("timeout")])]),
        ]
        let store = try await store(units, clock: clock, logger: log.logger())
        func load(_ unit: String) async {
            _ = await store.load(AdLoadRequest(adUnit: unit, format: .native, force: true))
        }
        func infos() -> [String] {
            log.lines.filter { $0.hasPrefix("info ad load failed ") || $0.hasPrefix("info ad sources failed ") }
        }
        await load("u")
        await load("u")
        await load("v")
        let failedSource = "failed=test \(Self.native) error: the test network was told to fail"
        #expect(infos().count == 2, "\(log.text)")
        #expect(
            infos().first.map {
                $0.hasPrefix("info ad sources failed before the load filled ad_unit=u app=- ")
                    && $0.contains(failedSource) && $0.contains("network=test")
            } == true,
            "\(infos())")
        #expect(
            infos().last.map {
                $0.contains("info ad load failed ad_unit=v app=- code=timeout ")
                    && $0.contains("reason=the test network's ad server did not answer in time")
            } == true,
            "\(infos())")
        #expect(log.lines.filter { $0.hasPrefix("debug ad load ") }.count == 3)
        clock.advance(by: .seconds(10))
        await load("u")
        #expect(infos().count == 3, "10 s later, the unit's failures are said again")
    }

    @Test func aFailedLoadAnswersTheLastReasonAndEveryAttempt() async throws {
        let unit = try AdUnit(
            id: "u", format: .native,
            waterfall: [
                item(Self.native, ["behavior": .string("error")]), item(Self.native, ["behavior": .string("no_fill")]),
            ])
        let result = await (try await store([unit])).load(AdLoadRequest(adUnit: "u", format: .native))
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.error.code == .noFill)
        #expect(failure.info?.attempts.map(\.outcome) == [.error, .noFill])
        let wrong = await (try await store([unit])).load(AdLoadRequest(adUnit: "u", format: .rewarded))
        #expect((try? wrong.get()) == nil)
        if case .failure(let failure) = wrong { #expect(failure.error.code == .invalidRequest) }
    }

    @Test func anAdapterThatCompletesTwiceCountsOnce() async throws {
        let before = TestAdNetwork.ignoredCompletions.load(ordering: .relaxed)
        let store = try await store([
            AdUnit(
                id: "u", format: .rewarded, waterfall: [item(Self.rewarded, ["behavior": .string("complete_twice")])])
        ])
        let stream = events(store.events)
        let ad = try await store.load(AdLoadRequest(adUnit: "u", format: .rewarded)).get()
        #expect(ad.reward == Reward(type: "coins", amount: 10))
        #expect(TestAdNetwork.ignoredCompletions.load(ordering: .relaxed) > before, "the second completion was ignored")
        _ = try await store.show(ad.adID)
        var names: [AdEvent.Name] = []
        for await event in stream {
            names.append(event.name)
            if event.name == .willPresent { break }
        }
        #expect(names == [.loaded, .willPresent], "one loaded event")
    }

    @Test func concurrentLoadsOfOneUnitJoin() async throws {
        let store = try await store([
            AdUnit(id: "u", format: .native, waterfall: [item(Self.native, ["delay_ms": .number(200)])])
        ])
        async let first = store.load(AdLoadRequest(adUnit: "u", format: .native))
        async let second = store.load(AdLoadRequest(adUnit: "u", format: .native))
        let (a, b) = try await (first.get(), second.get())
        #expect(a.adID == b.adID)
        #expect(a.responseInfo.attempts.count == 1)
    }

    @Test func aReadyAdIsHandedOutUntilUsedOrForced() async throws {
        let store = try await store([AdUnit(id: "u", format: .native, waterfall: [item(Self.native)])])
        let first = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        let again = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        #expect(again.adID == first.adID)
        let forced = try await store.load(AdLoadRequest(adUnit: "u", format: .native, force: true)).get()
        #expect(forced.adID != first.adID)
        _ = try await store.impression(forced.adID)
        let next = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        #expect(next.adID != forced.adID, "a used ad is not handed out again")
    }

    @Test func impressionsAndClicksCountOnce() async throws {
        let store = try await store([AdUnit(id: "u", format: .native, waterfall: [item(Self.native)])])
        let ad = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        #expect(try await store.impression(ad.adID) == LifecycleOutcome(recorded: true, reason: nil, action: nil))
        #expect(
            try await store.impression(ad.adID) == LifecycleOutcome(recorded: false, reason: "duplicate", action: nil))
        let click = try await store.click(ad.adID, asset: "headline")
        let repeated = try await store.click(ad.adID, asset: "headline")
        #expect(click.recorded && !repeated.recorded && repeated.reason == "duplicate")
        #expect(click.action == repeated.action)
        await #expect(throws: AdLifecycleError.self) { try await store.impression("nope") }
    }

    @Test func aClickGoesToCustomHandlingThenAnOpenableDeepLinkThenTheURL() async throws {
        let store = try await store([
            AdUnit(id: "u", format: .native, waterfall: [item(Self.native, ["deep_link": .string("myapp://offer/7")])])
        ])
        func action(_ preferences: NativeAdPreferences) async throws -> LifecycleOutcome.ClickAction? {
            let ad = try await store.load(
                AdLoadRequest(adUnit: "u", format: .native, preferences: preferences, force: true)
            ).get()
            return try await store.click(ad.adID, asset: nil).action
        }
        #expect(
            try await action(NativeAdPreferences(customClickHandling: true, openableSchemes: ["myapp"]))?.type
                == .custom)
        let deep = try await action(NativeAdPreferences(openableSchemes: ["market", "MyApp"]))
        #expect(deep?.type == .deepLink && deep?.url == "myapp://offer/7")
        let url = try await action(NativeAdPreferences(openableSchemes: ["market"]))
        #expect(url?.type == .url && url?.url?.hasPrefix("https://") == true)
    }

    @Test func theRewardAlwaysComesBeforeTheDismissAndTheAdShowsOnce() async throws {
        let store = try await store([
            AdUnit(id: "u", format: .rewarded, waterfall: [item(Self.rewarded, ["behavior": .string("dismiss_first")])])
        ])
        let ad = try await store.load(
            AdLoadRequest(adUnit: "u", format: .rewarded, ssv: ServerSideVerification(customData: "level-3"))
        ).get()
        let stream = events(store.events, EventHub.Filter(adID: ad.adID))
        _ = try await store.show(ad.adID)
        await #expect(throws: AdLifecycleError(.adAlreadyUsed, "ad '\(ad.adID)' was already shown; load another")) {
            try await store.show(ad.adID)
        }
        _ = try await store.progress(ad.adID, .start)
        // The network reports the dismiss before the reward when the video completes.
        _ = try await store.progress(ad.adID, .complete)
        #expect(try await store.dismiss(ad.adID).reason == "duplicate", "the network already dismissed it")
        var seen: [AdEvent] = []
        for await event in stream {
            seen.append(event)
            if event.name == .dismissed { break }
        }
        #expect(
            seen.map(\.name) == [
                .willPresent, .impression, .paid, .videoStart, .videoComplete, .rewardEarned, .dismissed,
            ])
        let reward = try #require(seen.first { $0.name == .rewardEarned })
        #expect(reward.fields["ssv"] == .object(["custom_data": .string("level-3")]), "only what was set")
    }

    @Test func aSkippedVideoEarnsNothingAndNoSSVIsSentWhenNoneWasSet() async throws {
        let store = try await store([AdUnit(id: "u", format: .rewarded, waterfall: [item(Self.rewarded)])])
        let skipped = try await store.load(AdLoadRequest(adUnit: "u", format: .rewarded)).get()
        let stream = events(store.events, EventHub.Filter(adID: skipped.adID))
        _ = try await store.show(skipped.adID)
        _ = try await store.progress(skipped.adID, .skip)
        _ = try await store.dismiss(skipped.adID)
        var names: [AdEvent.Name] = []
        for await event in stream {
            names.append(event.name)
            if event.name == .dismissed { break }
        }
        #expect(!names.contains(.rewardEarned))

        let watched = try await store.load(AdLoadRequest(adUnit: "u", format: .rewarded)).get()
        let watchedEvents = events(store.events, EventHub.Filter(adID: watched.adID))
        _ = try await store.show(watched.adID)
        _ = try await store.progress(watched.adID, .complete)
        for await event in watchedEvents where event.name == .rewardEarned {
            #expect(event.fields["ssv"] == nil)
            break
        }
    }

    @Test func adsExpireOnTheStoresClock() async throws {
        let clock = ManualClock()
        let store = try await store(
            [AdUnit(id: "u", format: .native, waterfall: [item(Self.native)], expiry: .seconds(3600))], clock: clock)
        let ad = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        clock.advance(by: .seconds(3599))
        #expect(try await store.ad(ad.adID).adID == ad.adID)
        clock.advance(by: .seconds(1))
        await #expect(throws: AdLifecycleError(.adExpired, "ad '\(ad.adID)' expired; load another")) {
            try await store.impression(ad.adID)
        }
        let next = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        #expect(next.adID != ad.adID, "an expired ad is not handed out")
    }

    @Test func failedLoadsRetryWithBackoffUpToTheUnitsLimit() async throws {
        let clock = ManualClock()
        let (store, failures) = try await dryUnit(maxRetries: 3, clock: clock)
        _ = await store.load(AdLoadRequest(adUnit: "u", format: .native))
        // Retry n waits 2^min(6, n) s: 2, 4, 8.
        for (attempt, delay) in [(1, 2), (2, 4), (3, 8)] {
            try await waitUntil { await store.pendingRetry(of: "u") == attempt && clock.sleeping == 1 }
            clock.advance(by: .seconds(delay) - .milliseconds(1))
            #expect(clock.sleeping == 1 && failures.count == attempt, "retry \(attempt) waits its full \(delay) s")
            clock.advance(by: .milliseconds(1))
            try await waitUntil { failures.count == attempt + 1 }
        }
        // The store schedules a retry in the same step that reports the failure.
        #expect(await store.pendingRetry(of: "u") == nil && clock.sleeping == 0, "three retries, then it stops")
        #expect(failures.count == 4)
    }

    @Test func nativeAdsFollowTheClientsPreferences() async throws {
        let store = try await store([AdUnit(id: "u", format: .native, waterfall: [item(Self.native)])])
        let portrait = try await store.load(
            AdLoadRequest(
                adUnit: "u", format: .native,
                preferences: NativeAdPreferences(mediaAspectRatio: .portrait, multipleImages: true), force: true)
        ).get()
        let images = try #require(portrait.native?.images)
        #expect(images.count == 2 && images[0].url.hasSuffix("portrait.png") && images[0].data != nil)
        #expect((portrait.native?.mediaAspectRatio ?? 1) < 1)
        let urlsOnly = try await store.load(
            AdLoadRequest(
                adUnit: "u", format: .native, preferences: NativeAdPreferences(disableImageLoading: true), force: true)
        ).get()
        #expect(urlsOnly.native?.images.count == 1 && urlsOnly.native?.images.first?.data == nil)
        #expect(urlsOnly.native?.icon?.data == nil && urlsOnly.native?.icon?.scale == 1)
        let custom = try await store.load(
            AdLoadRequest(adUnit: "u", format: .native, formatIDs: [TestAdNetwork.customFormatID], force: true)
        ).get()
        #expect(custom.customNative?.formatID == "10063170")
        #expect(Set(custom.customNative?.assets.keys ?? [:].keys) == ["Headline", "MainImage", "Caption"])
        #expect(custom.native == nil)
    }

    @Test func theBackfillUnitCarriesAnAdChoicesOverlay() async throws {
        let store = try await store([AdUnit(id: "b", format: .native, waterfall: [item(TestAdNetwork.backfillUnit)])])
        let ad = try await store.load(AdLoadRequest(adUnit: "b", format: .native)).get()
        #expect(ad.native?.adChoices?.url.hasPrefix("https://") == true)
        #expect(ad.native?.adChoices?.icon != nil)
    }
}

extension AdStoreTests {
    @Test func adsLongPastTheirExpiryAreForgotten() async throws {
        let clock = ManualClock()
        let store = try await store(
            [AdUnit(id: "u", format: .native, waterfall: [item(Self.native)], expiry: .seconds(60))], clock: clock)
        let old = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        clock.advance(by: .seconds(61))
        await #expect(throws: AdLifecycleError(.adExpired, "ad '\(old.adID)' expired; load another")) {
            try await store.ad(old.adID)
        }
        clock.advance(by: .seconds(3600))
        _ = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        await #expect(throws: AdLifecycleError(.unknownAd, "no ad '\(old.adID)'")) { try await store.ad(old.adID) }
        #expect(await store.storedAds == 1)
    }

    @Test func forcedLoadsKeepOnlyTheLatestUnusedAdsButEveryUsedOne() async throws {
        let store = try await store([AdUnit(id: "u", format: .native, waterfall: [item(Self.native)])])
        let kept = AdStore<ManualClock>.unusedAdsKeptPerUnit
        let used = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        _ = try await store.impression(used.adID)
        var ids: [String] = []
        for _ in 0..<(kept + 5) {
            ids.append(try await store.load(AdLoadRequest(adUnit: "u", format: .native, force: true)).get().adID)
        }
        // The 5 oldest unused ads are gone; the used one, and the latest `kept`, stay.
        for id in ids.prefix(5) {
            await #expect(throws: AdLifecycleError(.unknownAd, "no ad '\(id)'")) { try await store.ad(id) }
        }
        for id in ids.suffix(kept) { #expect(try await store.ad(id).adID == id) }
        #expect(try await store.ad(used.adID).adID == used.adID)
        #expect(await store.storedAds == kept + 1)
    }
}

extension AdStoreTests {
    @Test func showingAnExpiredAdFailsToPresent() async throws {
        let clock = ManualClock()
        let store = try await store(
            [AdUnit(id: "r", format: .rewarded, waterfall: [item(Self.rewarded)], expiry: .seconds(10))], clock: clock)
        let ad = try await store.load(AdLoadRequest(adUnit: "r", format: .rewarded)).get()
        let stream = events(store.events, EventHub.Filter(adID: ad.adID))
        clock.advance(by: .seconds(10))
        await #expect(throws: AdLifecycleError.self) { try await store.show(ad.adID) }
        for await event in stream {
            #expect(event.name == .failedToPresent && event.fields["code"] == .string("ad_expired"))
            break
        }
    }

    @Test func aLazyNetworkIsSetUpOnItsFirstLoadOnly() async throws {
        let store = try await AdStore(
            units: [AdUnit(id: "u", format: .native, waterfall: [item(Self.native)])],
            networks: [AdNetworkConfiguration(name: "test", lazy: true)], registry: BuiltinAdNetworks.registry,
            services: .offline, rewards: SQLiteRewardLedger(StateDatabase()),
            impressions: SQLiteImpressionLog(StateDatabase()),
            clock: ManualClock(),
            logger: Logger(label: "test"))
        await store.initializeNetworks()
        let before = try #require(await store.networkStatuses().first)
        #expect(before.state == .initializing && before.description == "set up on first use")
        #expect(await store.networksSettled, "a lazy network does not hold up readiness")
        _ = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        let after = try #require(await store.networkStatuses().first)
        #expect(after.state == .ready && after.kind == "ad_network")
    }
}

extension AdStoreTests {
    @Test func aClientLoadDuringTheBackoffNeitherResetsNorDoublesTheRetries() async throws {
        let clock = ManualClock()
        let (store, failures) = try await dryUnit(maxRetries: 2, clock: clock)
        _ = await store.load(AdLoadRequest(adUnit: "u", format: .native))
        try await waitUntil { await store.pendingRetry(of: "u") == 1 && clock.sleeping == 1 }
        _ = await store.load(AdLoadRequest(adUnit: "u", format: .native))  // fails too, while retry 1 waits
        try await waitUntil { failures.count == 2 }
        #expect(await store.pendingRetry(of: "u") == 1, "still retry 1, and only one waiting")
        clock.advance(by: .seconds(2))
        try await waitUntil { await store.pendingRetry(of: "u") == 2 && clock.sleeping == 1 }
        clock.advance(by: .seconds(4))
        try await waitUntil { failures.count == 4 }
        #expect(await store.pendingRetry(of: "u") == nil && clock.sleeping == 0, "max_retries 2: then it stops")
    }
}

/// Counts what the event stream says, for tests that wait on it.
final class EventCount: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func add() { value.withLock { $0 += 1 } }
}

extension AdStoreTests {
    /// A store whose unit "u" never fills and retries `maxRetries` times, and a count of its
    /// `failed_to_load` events.
    func dryUnit(maxRetries: Int, clock: ManualClock) async throws -> (AdStore<ManualClock>, EventCount) {
        let store = try await store(
            [
                AdUnit(
                    id: "u", format: .native, waterfall: [item(Self.native, ["behavior": .string("no_fill")])],
                    maxRetries: maxRetries)
            ],
            clock: clock)
        let failures = EventCount()
        let stream = events(store.events)
        Task { for await event in stream where event.name == .failedToLoad { failures.add() } }
        return (store, failures)
    }
}

extension AdStoreTests {
    @Test func attemptLatenciesOverASecondAreInMilliseconds() async throws {
        // A line item that hangs for its 1.1 s on the store's clock, then one that fills.
        let unit = try AdUnit(
            id: "u", format: .native,
            waterfall: [
                item(Self.native, ["behavior": .string("hang")], timeout: .milliseconds(1100)), item(Self.native),
            ])
        let clock = ManualClock()
        let store = try await store([unit], clock: clock)
        let loading = Task { await store.load(AdLoadRequest(adUnit: "u", format: .native)) }
        try await waitUntil { clock.wakeTimes.contains(.milliseconds(1100)) }
        clock.advance(by: .milliseconds(1100))
        let ad = try await loading.value.get()
        #expect(ad.responseInfo.attempts.map(\.latencyMilliseconds) == [1100, 0])
    }
}
