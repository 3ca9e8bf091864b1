import Adapters
import Foundation
import Logging
import SharedTypes
import StateStore
import Synchronization
import TestSupport
import Testing
import Timing

@testable import Mediation

/// Frequency caps and pacing: the rule itself, and the store counting per app on its clock,
/// durably in a real SQLite file.
struct FrequencyCappingTests {
    static let hour = Duration.seconds(3600)

    @Test func theStrictestRuleSaysUntilWhen() {
        let capping = FrequencyCapping(
            caps: [.init(impressions: 2, per: .seconds(60)), .init(impressions: 3, per: Self.hour)],
            pacing: .seconds(10))
        #expect(capping.cappedUntil(after: [], now: 1_000_000) == nil)
        // One, 5 s ago: only the pacing holds.
        #expect(capping.cappedUntil(after: [995_000], now: 1_000_000) == 1_005_000)
        #expect(capping.cappedUntil(after: [990_000], now: 1_000_000) == nil, "paced exactly 10 s apart")
        // Two in the minute: until the first leaves it.
        #expect(capping.cappedUntil(after: [970_000, 985_000], now: 1_000_000) == 1_030_000)
        // An impression exactly a window ago no longer counts.
        #expect(capping.cappedUntil(after: [940_000, 985_000], now: 1_000_000) == nil)
        // Three in the hour (the two older out of the minute): until the oldest leaves the hour.
        let hourAgo = 1_000_000 - Self.hour.wholeMilliseconds
        #expect(capping.cappedUntil(after: [hourAgo + 1, hourAgo + 500, 900_000], now: 1_000_000) == 1_000_001)
        // More than the cap: the window falls below it when the third newest leaves.
        #expect(
            capping.cappedUntil(after: [hourAgo + 1, hourAgo + 500, 800_000, 900_000], now: 1_000_000)
                == hourAgo + 500 + Self.hour.wholeMilliseconds)
        #expect(capping.shown(capping.caps[0], in: [940_000, 970_000, 985_000], now: 1_000_000) == 2)
        #expect(FrequencyCapping().cappedUntil(after: [999_999], now: 1_000_000) == nil)
        #expect(capping.horizon == Self.hour)
    }

    static func units(capping: FrequencyCapping) -> [AdUnit] {
        [
            AdUnit(
                id: "u", format: .native, waterfall: [LineItem(network: "test", parameter: TestAdNetwork.nativeUnit)],
                capping: capping),
            AdUnit(
                id: "free", format: .native, waterfall: [LineItem(network: "test", parameter: TestAdNetwork.nativeUnit)]
            ),
        ]
    }

    func store(
        _ log: any ImpressionLog, clock: ManualClock, capping: FrequencyCapping, wallTimeAtStart: Int64? = nil
    ) async throws -> AdStore<ManualClock> {
        try await AdStore(
            units: Self.units(capping: capping),
            networks: [AdNetworkConfiguration(name: "test")], registry: BuiltinAdNetworks.registry,
            services: .offline, rewards: SQLiteRewardLedger(StateDatabase()), impressions: log, clock: clock,
            wallTimeAtStart: wallTimeAtStart, logger: Logger(label: "test"))
    }

    /// App `id` (nil: the core alone).
    func app(_ id: String?) -> AppIdentity? { id.map { AppIdentity(id: $0, capabilities: [.ads]) } }

    /// Loads a new ad of `unit` for app `id` and records its impression; the load's failure, if any.
    @discardableResult
    func show(_ store: AdStore<ManualClock>, _ unit: String = "u", app id: String?) async throws -> AdLoadFailure? {
        switch await store.load(AdLoadRequest(adUnit: unit, format: .native, force: true, app: app(id))) {
        case .success(let ad):
            #expect(try await store.impression(ad.adID, by: app(id)) == .recorded)
            return nil
        case .failure(let failure):
            return failure
        }
    }

    @Test func eachAppIsCountedApartAndTheCountsOutliveTheStore() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("state.sqlite")
        let capping = FrequencyCapping(caps: [.init(impressions: 2, per: Self.hour)])
        let clock = ManualClock()
        let start: Int64 = 1_800_000_000_000
        do {
            let store = try await store(
                SQLiteImpressionLog(try await StateDatabase.open(path: path)), clock: clock, capping: capping,
                wallTimeAtStart: start)
            #expect(try await show(store, app: "uid:1000") == nil)
            clock.advance(by: .seconds(60))
            #expect(try await show(store, app: "uid:1000") == nil)
            let capped = try #require(try await show(store, app: "uid:1000"))
            #expect(capped.error.code == .frequencyCapped)
            #expect(capped.retryAfter == Self.hour - .seconds(60), "until the first leaves the hour")
            #expect(try await show(store, app: "uid:1001") == nil, "another app")
            #expect(try await show(store, "free", app: "uid:1000") == nil, "another unit")
            let statuses = await store.unitStatuses(app: "uid:1000")
            try #require(statuses.map(\.id) == ["free", "u"])
            #expect(statuses[1].capped && statuses[1].frequencyCaps.first?.shown == 2)
            #expect(statuses[1].retryAfterMilliseconds == (Self.hour - .seconds(60)).wholeMilliseconds)
            #expect(!statuses[0].capped && statuses[0].frequencyCaps.isEmpty)
        }
        // A new store on the same file: still capped, for as long as was left.
        let log = SQLiteImpressionLog(try await StateDatabase.open(path: path))
        #expect(try await log.impressions(since: .min).count == 3, "the uncapped unit's impression is not kept")
        // Restarted 5 s of wall time after the first store began: its own clock starts at zero.
        let restarted = try await store(log, clock: ManualClock(), capping: capping, wallTimeAtStart: start + 5000)
        let capped = try #require(try await show(restarted, app: "uid:1000"))
        #expect(capped.error.code == .frequencyCapped)
        #expect(capped.retryAfter == Self.hour - .seconds(5), "until the first leaves the hour, on the wall clock")
        // 1001's one impression was kept too: its second fits the cap of 2, its third does not.
        #expect(try await show(restarted, app: "uid:1001") == nil)
        #expect(try await show(restarted, app: "uid:1001")?.error.code == .frequencyCapped)
    }

    @Test func impressionsOutsideTheHorizonAreForgottenOnDisk() async throws {
        let database = StateDatabase()
        let log = SQLiteImpressionLog(database)
        let clock = ManualClock()
        let store = try await store(log, clock: clock, capping: FrequencyCapping(pacing: .seconds(30)))
        for _ in 0..<5 {
            #expect(try await show(store, app: "uid:7") == nil)
            let paced = try #require(try await show(store, app: "uid:7"))
            #expect(paced.retryAfter == .seconds(30))
            clock.advance(by: .seconds(30))
        }
        // Each record forgets what the pacing no longer needs: the last one only.
        #expect(try await log.impressions(since: .min).count == 1)
    }

    @Test func aCapKeepsOnDiskEveryImpressionItsWindowStillCounts() async throws {
        let log = SQLiteImpressionLog(StateDatabase())
        let clock = ManualClock()
        let store = try await store(
            log, clock: clock, capping: FrequencyCapping(caps: [.init(impressions: 2, per: .seconds(60))]))
        #expect(try await show(store, app: "uid:3") == nil)
        clock.advance(by: .milliseconds(59_999))
        #expect(try await show(store, app: "uid:3") == nil)
        #expect(try await log.impressions(since: .min).count == 2, "the first is 1 ms inside the window")
        clock.advance(by: .milliseconds(1))
        // The first left the window: the next load fits, and its record forgets it.
        #expect(try await show(store, app: "uid:3") == nil)
        #expect(try await log.impressions(since: .min).count == 2)
    }

    @Test func anAppWhoseUIDIsUnknownIsCountedAsOne() async throws {
        let log = SQLiteImpressionLog(StateDatabase())
        let store = try await store(
            log, clock: ManualClock(), capping: FrequencyCapping(caps: [.init(impressions: 1, per: Self.hour)]))
        #expect(try await show(store, app: nil) == nil)
        #expect(try await show(store, app: nil)?.error.code == .frequencyCapped)
        #expect(try await show(store, app: "uid:0") == nil, "root is an app of its own")
        #expect(try await log.impressions(since: .min).map(\.app) == [nil, "uid:0"])
        // Read back by a new store: the unknown app is still capped.
        let again = try await self.store(
            log, clock: ManualClock(), capping: FrequencyCapping(caps: [.init(impressions: 1, per: Self.hour)]))
        #expect(try await show(again, app: nil)?.error.code == .frequencyCapped)
    }

    @Test func aReloadThatAddsCapsCountsWhatIsShownFromThenOn() async throws {
        let log = SQLiteImpressionLog(StateDatabase())
        let store = try await store(log, clock: ManualClock(), capping: FrequencyCapping())
        // Loaded before the reload, shown after it: the unit's caps now count it.
        let early = try await store.load(AdLoadRequest(adUnit: "u", format: .native, app: app("uid:5"))).get()
        try await store.reload(
            units: Self.units(capping: FrequencyCapping(caps: [.init(impressions: 1, per: Self.hour)])),
            networks: [AdNetworkConfiguration(name: "test")])
        #expect(try await store.impression(early.adID, by: app("uid:5")) == .recorded)
        #expect(try await show(store, app: "uid:5")?.error.code == .frequencyCapped)
        // A reload that keeps the caps reads the counts again, from the log.
        try await store.reload(
            units: Self.units(capping: FrequencyCapping(caps: [.init(impressions: 1, per: Self.hour)])),
            networks: [AdNetworkConfiguration(name: "test")])
        #expect(try await show(store, app: "uid:5")?.error.code == .frequencyCapped)
        // One that removes them lets the app load.
        try await store.reload(
            units: Self.units(capping: FrequencyCapping()), networks: [AdNetworkConfiguration(name: "test")])
        #expect(try await show(store, app: "uid:5") == nil)
    }

    @Test func anImpressionStoredInTheFutureCountsAsMadeNow() async throws {
        let log = SQLiteImpressionLog(StateDatabase())
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // Stored by a run whose wall clock was a day ahead.
        try await log.record(CappedImpression(adUnit: "u", app: "uid:9", at: now + 86_400_000), forgettingBefore: .min)
        let store = try await store(
            log, clock: ManualClock(), capping: FrequencyCapping(caps: [.init(impressions: 1, per: Self.hour)]))
        let capped = try #require(try await show(store, app: "uid:9"))
        let wait = try #require(capped.retryAfter)
        #expect(wait <= Self.hour && wait > Self.hour - .seconds(10), "capped for a window, not a day more: \(wait)")
    }

    /// The SQLite log, made to fail while `failing` is set.
    final class FlakyLog: ImpressionLog {
        let real = SQLiteImpressionLog(StateDatabase())
        let failing = Mutex(true)
        struct DiskFull: Error {}

        func record(_ impression: CappedImpression, forgettingBefore horizon: Int64) async throws {
            if failing.withLock({ $0 }) { throw DiskFull() }
            try await real.record(impression, forgettingBefore: horizon)
        }

        func impressions(since: Int64) async throws -> [CappedImpression] { try await real.impressions(since: since) }
    }

    /// The SQLite log, whose reads wait, once `holding`, until the test lets them go on: before
    /// they read (`readsFirst` false: the read sees what was written meanwhile) or after (it
    /// does not).
    final class HeldLog: ImpressionLog {
        let real = SQLiteImpressionLog(StateDatabase())
        let readsFirst: Bool
        let holding = Mutex(false)
        /// Yields once a held read waits; it goes on when `release` is called.
        let (reads, readsContinuation) = AsyncStream<Void>.makeStream()
        let (releases, releasesContinuation) = AsyncStream<Void>.makeStream()

        init(readsFirst: Bool) { self.readsFirst = readsFirst }

        func record(_ impression: CappedImpression, forgettingBefore horizon: Int64) async throws {
            try await real.record(impression, forgettingBefore: horizon)
        }

        func impressions(since: Int64) async throws -> [CappedImpression] {
            guard holding.withLock({ $0 }) else { return try await real.impressions(since: since) }
            let early = readsFirst ? try await real.impressions(since: since) : nil
            readsContinuation.yield()
            for await _ in releases { break }
            if let early { return early }
            return try await real.impressions(since: since)
        }

        /// Lets the held read go on; reads after it are not held.
        func release() {
            holding.withLock { $0 = false }
            releasesContinuation.yield()
        }
    }

    /// Shows an ad of "u" to app uid:1 while a reload (keeping `caps`) reads the log through
    /// `log`, then lets the read go on.
    func showDuringAReload(_ log: HeldLog, caps: FrequencyCapping) async throws -> AdStore<ManualClock> {
        let clock = ManualClock()
        let store = try await store(log, clock: clock, capping: caps)
        log.holding.withLock { $0 = true }
        let reloading = Task {
            try await store.reload(units: Self.units(capping: caps), networks: [AdNetworkConfiguration(name: "test")])
        }
        for await _ in log.reads { break }
        // Shown later than the reload began to read: a read that sees it holds it as of then.
        clock.advance(by: .milliseconds(5))
        #expect(try await show(store, app: "uid:1") == nil)
        log.release()
        try await reloading.value
        return store
    }

    @Test(.timeLimit(.minutes(1))) func anImpressionCountedWhileAReloadReadsTheLogStillCounts() async throws {
        // Read before the impression was written: the reload takes it up.
        let log = HeldLog(readsFirst: true)
        let store = try await showDuringAReload(
            log, caps: FrequencyCapping(caps: [.init(impressions: 1, per: Self.hour)]))
        #expect(try await show(store, app: "uid:1")?.error.code == .frequencyCapped, "the reload kept the count")
        #expect(try await log.impressions(since: .min).count == 1)
    }

    @Test(.timeLimit(.minutes(1))) func anImpressionTheReloadsReadSawCountsOnce() async throws {
        // Written before the read: the reload holds it once, not twice (the cap is 2).
        let log = HeldLog(readsFirst: false)
        let store = try await showDuringAReload(
            log, caps: FrequencyCapping(caps: [.init(impressions: 2, per: Self.hour)]))
        #expect(try await show(store, app: "uid:1") == nil, "one counted, one more fits")
        #expect(try await show(store, app: "uid:1")?.error.code == .frequencyCapped)
        #expect(try await log.impressions(since: .min).count == 2)
    }

    @Test func anImpressionTheDiskRefusedStillCountsInMemory() async throws {
        let log = FlakyLog()
        let store = try await store(
            log, clock: ManualClock(), capping: FrequencyCapping(caps: [.init(impressions: 1, per: Self.hour)]))
        #expect(try await show(store, app: "uid:1") == nil)
        #expect(try await show(store, app: "uid:1")?.error.code == .frequencyCapped)
        #expect(try await log.impressions(since: .min).isEmpty)
    }
}
