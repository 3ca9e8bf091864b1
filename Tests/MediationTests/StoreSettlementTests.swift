import Adapters
import Foundation
import Logging
import SharedTypes
import StateStore
import TestSupport
import Testing

@testable import Mediation

/// Bids settled through the store, against the real tracker queue and its SQLite outbox: a bid
/// that comes too late is told it lost; a won bid's billing goes at its ad's impression, and an
/// ad that leaves unused (expired, displaced) owes neither billing nor a loss after its win.
struct StoreSettlementTests {
    /// A test's own prefix for its bidders' ids.
    let run = String(UUID().uuidString.prefix(8))
    let queue = RecordedTrackers()

    var ledger: BidLedger { services.bids }
    let services: AdNetworkServices

    init() {
        services = AdNetworkServices(fetcher: NoFetcher(), trackers: queue.trackers)
    }

    /// `unit`'s store, on `clock`: its timeouts pass only when the test moves it.
    func store(_ unit: AdUnit, clock: ManualClock = ManualClock(), maxStoredAds: Int = 2000) async throws
        -> AdStore<ManualClock>
    {
        try await AdStore(
            units: [unit], networks: [AdNetworkConfiguration(name: "test"), AdNetworkConfiguration(name: "bidder")],
            registry: AdNetworkRegistry([TestAdNetwork.self, ScriptedBidder.self]), services: services,
            rewards: SQLiteRewardLedger(StateDatabase()), impressions: SQLiteImpressionLog(StateDatabase()),
            clock: clock, logger: Logger(label: "test"), maxStoredAds: maxStoredAds)
    }

    /// A scripted bidder whose notices go through the queue as `URLNotices`' (`ID/win`, ...).
    func bidder(_ id: String, price: Double, _ options: [String: JSONValue] = [:]) throws -> LineItem {
        var options = options
        options["price"] = .number(price)
        options["id"] = .string(run + id)
        options["urls"] = .bool(true)
        return LineItem(
            network: "bidder", parameter: id, options: try ScriptedBidder.decodeLineItemOptions(options))
    }

    /// What the queue sent, this test's prefix left out.
    func sent() async throws -> [String] {
        try await queue.sent().map { $0.replacingOccurrences(of: run, with: "") }
    }

    @Test func aBidThatComesAfterTheAuctionIsToldItLostOnce() async throws {
        // The scripted bidder ignores its cancellation: it bids after the auction's 250 ms (its
        // 300 ms less the 50 kept for processing), on the store's clock.
        var unit = try AdUnit(
            id: "u", format: .native,
            waterfall: [
                LineItem(
                    network: "test", parameter: TestAdNetwork.nativeUnit,
                    options: try TestAdNetwork.decodeLineItemOptions(["delay_ms": .int(0)]))
            ],
            bidders: [bidder("late", price: 9, ["delay_ms": .int(3_600_000)])])
        unit.auction = AuctionTiming(timeout: .milliseconds(300))
        let clock = ManualClock()
        let store = try await store(unit, clock: clock)
        let loading = Task { await store.load(AdLoadRequest(adUnit: "u", format: .native)) }
        try await waitUntil { clock.wakeTimes.contains(.milliseconds(250)) }
        clock.advance(by: .milliseconds(249))
        #expect(clock.wakeTimes.contains(.milliseconds(250)), "the bidder still has 1 ms")
        clock.advance(by: .milliseconds(1))
        let ad = try await loading.value.get()
        #expect(ad.responseInfo.bids?.map(\.outcome) == [.timeout])
        #expect(ad.responseInfo.bids?.first?.latencyMilliseconds == 250)
        #expect(ad.responseInfo.network == "test")
        // The late bid reaches the ledger when its work ends: wait for its notice, then for quiet.
        _ = try await eventually { try await sent().isEmpty ? nil : true }
        _ = try await eventually { ledger.unsettled == 0 ? true : nil }
        #expect(try await sent() == ["late/loss/2/-"], "expired (2), once; it never won")
    }

    @Test func anExpiredUnusedAdOwesNoLossAfterItsWinAndNeverItsBilling() async throws {
        let clock = ManualClock()
        let unit = try AdUnit(
            id: "u", format: .native, waterfall: [], expiry: .seconds(60), bidders: [bidder("e", price: 2)])
        let store = try await store(unit, clock: clock)
        let ad = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        #expect(try await sent() == ["e/win"], "won when the store kept its ad")
        #expect(ledger.unsettled == 1, "its billing is owed at the impression")
        clock.advance(by: .seconds(60))
        await #expect(throws: AdLifecycleError(.adExpired, "ad '\(ad.adID)' expired; load another")) {
            try await store.impression(ad.adID)
        }
        // An hour after its expiry the ad leaves the store, unused: its billing is settled as not owed.
        clock.advance(by: AdRetention.keptAfterExpiry + .seconds(1))
        await #expect(throws: AdLifecycleError.self) { try await store.ad(ad.adID) }
        #expect(ledger.unsettled == 0)
        #expect(try await sent() == ["e/win"], "told it won: no loss after, and no billing without an impression")
    }

    @Test func aDisplacedAdOwesNoLossAfterItsWinAndTheAdShownBillsOnce() async throws {
        let unit = try AdUnit(id: "u", format: .native, waterfall: [], bidders: [bidder("d", price: 2)])
        let store = try await store(unit, maxStoredAds: 1)
        let first = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        let second = try await store.load(AdLoadRequest(adUnit: "u", format: .native, force: true)).get()
        #expect(first.adID != second.adID)
        // The store holds one ad: the first, unused, was displaced by the second.
        await #expect(throws: AdLifecycleError(.unknownAd, "no ad '\(first.adID)'")) {
            try await store.impression(first.adID)
        }
        #expect(ledger.unsettled == 1, "only the ad still held owes its billing")
        #expect(try await store.impression(second.adID) == .recorded)
        #expect(try await store.impression(second.adID) == .duplicate)
        #expect(ledger.unsettled == 0)
        #expect(try await sent().sorted() == ["d/bill", "d/win", "d/win"], "a win each, one billing, no loss")
    }
}
