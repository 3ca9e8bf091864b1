import Adapters
import Foundation
import Logging
import SharedTypes
import StateStore
import Synchronization
import TestSupport
import Testing

@testable import Mediation

/// A bidder whose line item options say what it bids and how its ad loads: `price`, `delay_ms`
/// (before it answers, on the real clock, cut short by its cancellation: with an hour, it bids
/// once its time is up), `behavior` (`no_bid`, `error`, `load_fails`, `rewarded_ad`, and
/// `budget`, which keeps what its deadlines leave it in `budgets`), `id`, which names its
/// notices in `notices`, and `urls`: it also owes them as `URLNotices` does.
final class ScriptedBidder: BiddingAdNetwork {
    static let name = "bidder"
    static let adapterVersion = SemanticVersion(1, 0, 0)
    let sdkVersion = SemanticVersion(1, 0, 0)
    /// Every notice sent, as `win id` or `loss id reason min`, in order.
    static let notices = Mutex<[String]>([])
    /// A `budget` bidder's, by id: its budget when asked (`request.budget` of a minute), again
    /// once the store's clock has moved, then what its turn's deadline leaves when its ad loads.
    static let budgets = Mutex<[String: [Duration]]>([:])
    private let ads: TestAdNetwork
    private let ledger: BidLedger

    @Settings
    struct LineItemOptions: Decodable, Sendable, Equatable {
        var price = 1.0
        @WireName("delay_ms") var delayMilliseconds: Int?
        var behavior: String?
        var id = "?"
        @WireName("exp_s") var expirySeconds: Int?
        var urls = false
    }

    init(setup: NoOptions, context: AdNetworkContext) async throws {
        ads = try await TestAdNetwork.make(setup: nil, context: context)
        ledger = context.services.bids
    }

    func bid(_ request: NetworkAdRequest, format: AdFormat) async throws(AdLoadError) -> BidAnswer {
        let options = try lineItemOptions(of: request)
        let id = options.id
        if let delay = options.delayMilliseconds { try? await Task.sleep(for: .milliseconds(delay)) }
        let behavior = options.behavior
        if behavior == "no_bid" { throw AdLoadError(.noFill, "no bid") }
        if behavior == "error" { throw AdLoadError(.networkError, "the bidder failed") }
        if behavior == "budget" {
            let asked = request.budget(.seconds(60))
            Self.budgets.withLock { $0[id, default: []].append(asked) }
            // Until the test moves the store's clock: a wait for it to happen, not for time.
            while request.budget(.seconds(60)) == asked, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(1))
            }
            Self.budgets.withLock { $0[id, default: []].append(request.budget(.seconds(60))) }
        }
        let ads = self.ads
        let expiry = options.expirySeconds.map { Duration.seconds($0) }
        return .bid(
            NetworkBid(
                price: options.price, currency: "USD",
                load: { deadline async throws(AdLoadError) -> NetworkAd in
                    if behavior == "budget" { Self.budgets.withLock { $0[id, default: []].append(deadline.remaining) } }
                    switch behavior {
                    case "load_fails": throw AdLoadError(.networkError, "the markup did not load")
                    case "rewarded_ad":
                        return try await ads.loadRewardedAd(
                            NetworkAdRequest(
                                adUnit: request.adUnit, parameter: TestAdNetwork.rewardedUnit, currency: "USD")
                        )
                    default:
                        var ad = try await ads.loadNativeAd(
                            NetworkAdRequest(
                                adUnit: request.adUnit, parameter: TestAdNetwork.nativeUnit, currency: "USD"))
                        ad.expiry = expiry
                        return ad
                    }
                },
                owed: ledger.open(Notices(id: id, urls: options.urls))))
    }

    /// Its notices, kept in `notices` as the ledger settles its bid.
    struct Notices: BidNotices {
        let id: String
        let urls: Bool

        func won() -> NoticeURLs {
            ScriptedBidder.notices.withLock { $0.append("win \(id)") }
            return urls ? URLNotices(id: id).won() : NoticeURLs()
        }

        func lost(_ reason: AuctionLossReason, minimumToWin: Double?) -> NoticeURLs {
            let minimum = minimumToWin.map { "\($0)" } ?? "-"
            ScriptedBidder.notices.withLock { $0.append("loss \(id) \(reason.rawValue) \(minimum)") }
            return urls ? URLNotices(id: id).lost(reason, minimumToWin: minimumToWin) : NoticeURLs()
        }

        var billing: [String] { urls ? URLNotices(id: id).billing : [] }
    }

    /// As a waterfall line item: its bid's ad, which carries the bid (won when kept, lost (1)
    /// when dropped), as an `openrtb` line item's does.
    func loadNativeAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        guard case .bid(let bid) = try await bid(request, format: .native) else {
            throw AdLoadError(.noFill, "its bid was passed over")
        }
        guard let deadline = request.deadline else { throw AdLoadError(.invalidRequest, "a load has a deadline") }
        var ad = try await bid.load(deadline)
        ad.bid = bid.owed
        return ad
    }

    /// The notices of the bidders whose ids start with `prefix` (a test's own).
    static func notices(_ prefix: String) -> [String] {
        notices.withLock { $0 }.filter { $0.split(separator: " ").dropFirst().first?.hasPrefix(prefix) == true }
    }
}

/// Bidders asked at once, their bids slotted into the waterfall by price, and every bid's
/// notice sent once with its reason.
struct AuctionTests {
    /// A test's own prefix for its bidders' ids.
    let run = String(UUID().uuidString.prefix(8))

    /// `unit`'s store, on `clock`: its timeouts pass only when the test moves it.
    func store(_ unit: AdUnit, clock: ManualClock = ManualClock()) async throws -> AdStore<ManualClock> {
        try await AdStore(
            units: [unit], networks: [AdNetworkConfiguration(name: "test"), AdNetworkConfiguration(name: "bidder")],
            registry: AdNetworkRegistry([TestAdNetwork.self, ScriptedBidder.self]), services: .offline,
            rewards: SQLiteRewardLedger(StateDatabase()), impressions: SQLiteImpressionLog(StateDatabase()),
            clock: clock, logger: Logger(label: "test"))
    }

    func bidder(_ id: String, price: Double, _ options: [String: JSONValue] = [:]) throws -> LineItem {
        var options = options
        options["price"] = .number(price)
        options["id"] = .string(run + id)
        return LineItem(
            network: "bidder", parameter: id, options: try ScriptedBidder.decodeLineItemOptions(options))
    }

    /// A waterfall line item of the test network worth `cpm`; `fills: false` makes it answer no fill.
    func lineItem(_ name: String, cpm: Double?, fills: Bool = false) throws -> LineItem {
        LineItem(
            network: "test", parameter: TestAdNetwork.nativeUnit,
            options: try TestAdNetwork.decodeLineItemOptions(
                fills ? ["delay_ms": .int(0)] : ["behavior": "no_fill", "delay_ms": .int(0)]),
            cpm: cpm)
    }

    func load(_ store: AdStore<ManualClock>) async -> Result<MediatedAd, AdLoadFailure> {
        await store.load(AdLoadRequest(adUnit: "u", format: .native))
    }

    func notices() -> [String] { ScriptedBidder.notices(run).map { $0.replacingOccurrences(of: run, with: "") } }

    @Test func theBestBidServesAndEveryOtherBidderHearsItLost() async throws {
        let unit = try AdUnit(
            id: "u", format: .native, waterfall: [],
            bidders: [bidder("a", price: 2), bidder("b", price: 5.5), bidder("c", price: 3)])
        let ad = try await load(try await store(unit)).get()
        #expect(ad.responseInfo.network == "bidder")
        #expect(ad.responseInfo.attempts.map(\.parameter) == ["b"])
        let bids = try #require(ad.responseInfo.bids)
        #expect(bids.map(\.parameter) == ["a", "b", "c"], "in the unit's order")
        #expect(bids.map(\.outcome) == [.lost, .won, .lost])
        #expect(bids.map(\.lossReason) == [.outbid, nil, .outbid])
        #expect(bids.map(\.price) == [2, 5.5, 3])
        #expect(Set(notices()) == ["win b", "loss a 102 5.5", "loss c 102 5.5"])
        #expect(notices().count == 3, "one notice each")
    }

    @Test func aBidIsSlottedAmongTheLineItemsByPrice() async throws {
        let unit = try AdUnit(
            id: "u", format: .native,
            waterfall: [lineItem("low", cpm: 1), lineItem("high", cpm: 9), lineItem("mid", cpm: 4)],
            bidders: [bidder("a", price: 5, ["behavior": "load_fails"])])
        let failure = await load(try await store(unit))
        guard case .failure(let failed) = failure else {
            Issue.record("nothing should fill")
            return
        }
        let info = try #require(failed.info)
        // 9 is worth more than the bid: tried first; then the bid; then the rest in their order.
        #expect(info.attempts.map(\.network) == ["test", "bidder", "test", "test"])
        #expect(info.attempts.map(\.outcome) == [.noFill, .error, .noFill, .noFill])
        #expect(notices() == ["loss a 1 -"], "its markup did not load: a loss, never a win")
        #expect(info.bids?.first?.lossReason == .internalError)
    }

    @Test func aLineItemWorthMoreServesBeforeTheBidAndTheBidLosesToItsPrice() async throws {
        let unit = try AdUnit(
            id: "u", format: .native, waterfall: [lineItem("high", cpm: 8, fills: true)],
            bidders: [bidder("a", price: 5)])
        let ad = try await load(try await store(unit)).get()
        #expect(ad.responseInfo.network == "test")
        #expect(notices() == ["loss a 102 8.0"])
        #expect(ad.responseInfo.bids?.first?.outcome == .lost)
    }

    @Test func whenTheWinnerCannotLoadTheNextCandidateServes() async throws {
        let unit = try AdUnit(
            id: "u", format: .native, waterfall: [lineItem("floor", cpm: 1, fills: true)],
            bidders: [bidder("a", price: 6, ["behavior": "load_fails"]), bidder("b", price: 4)])
        let ad = try await load(try await store(unit)).get()
        #expect(ad.responseInfo.attempts.map(\.parameter) == ["a", "b"])
        #expect(ad.responseInfo.network == "bidder")
        #expect(Set(notices()) == ["loss a 1 -", "win b"])
        #expect(ad.responseInfo.bids?.map(\.outcome) == [.lost, .won])
    }

    @Test func bidsUnderTheFloorLoseAtOnceWithTheFloorAsThePriceToWin() async throws {
        let unit = try AdUnit(
            id: "u", format: .native, waterfall: [lineItem("fallback", cpm: nil, fills: true)],
            bidders: [bidder("a", price: 0.5), bidder("b", price: 1.5)], floorCPM: 1)
        let ad = try await load(try await store(unit)).get()
        #expect(ad.responseInfo.attempts.map(\.parameter) == ["b"], "b served before the unpriced line item")
        #expect(Set(notices()) == ["loss a 100 1.0", "win b"])
        #expect(ad.responseInfo.bids?.first?.lossReason == .belowFloor)
    }

    @Test func aBidderPastItsTimeIsATimeoutAndTheOthersAreNotKeptWaiting() async throws {
        // On the store's clock: the slow bidder has 500 ms of its own, the fast one the auction's
        // 950 (its 1 s less 50 for processing).
        let clock = ManualClock()
        var slow = try bidder("slow", price: 9, ["delay_ms": .int(3_600_000)])
        slow.timeout = .milliseconds(500)
        let unit = try AdUnit(id: "u", format: .native, waterfall: [], bidders: [slow, bidder("fast", price: 2)])
        let store = try await store(unit, clock: clock)
        // The slow bidder would answer in an hour: the load ends because its time does.
        let loading = Task { await load(store) }
        try await waitUntil { clock.wakeTimes.contains(.milliseconds(500)) }
        clock.advance(by: .milliseconds(499))
        #expect(clock.wakeTimes.contains(.milliseconds(500)), "the slow bidder still has 1 ms")
        clock.advance(by: .milliseconds(1))
        let ad = try await loading.value.get()
        let bids = try #require(ad.responseInfo.bids)
        #expect(bids.map(\.outcome) == [.timeout, .won])
        #expect(bids.first?.latencyMilliseconds == 500, "its 500 ms on the store's clock")
        #expect(bids.first?.message == "no bid within 0.5 seconds")
        // The scripted bidder ignores its cancellation and bids anyway, after the auction: that
        // bid is not in the auction, and hears so once (2, expired), as the winner hears it won.
        let heard = try await eventually { notices().count == 2 ? Set(notices()) : nil }
        #expect(heard == ["win fast", "loss slow 2 -"])
    }

    @Test func aWaterfallAdThatComesAfterItsTimeoutIsDroppedWithItsNotice() async throws {
        // The scripted network ignores its cancellation: its ad comes after the line item's
        // 300 ms on the store's clock, when the waterfall has moved on. It owes a notice, and
        // sends it.
        let clock = ManualClock()
        var slow = try bidder("slow", price: 9, ["delay_ms": .int(3_600_000)])
        slow.timeout = .milliseconds(300)
        let unit = try AdUnit(id: "u", format: .native, waterfall: [slow, lineItem("next", cpm: nil, fills: true)])
        let store = try await store(unit, clock: clock)
        let loading = Task { await load(store) }
        try await waitUntil { clock.wakeTimes.contains(.milliseconds(300)) }
        clock.advance(by: .milliseconds(300))
        let ad = try await loading.value.get()
        #expect(ad.responseInfo.attempts.map(\.outcome) == [.timeout, .filled])
        #expect(ad.responseInfo.attempts.first?.latencyMilliseconds == 300)
        let heard = try await eventually { notices().isEmpty ? nil : notices() }
        #expect(heard == ["loss slow 1 -"], "dropped, it is told so once; it never won")
    }

    @Test func aBiddersBudgetIsWhatTheBidWaitLeavesOnTheStoresClock() async throws {
        let clock = ManualClock()
        let unit = try AdUnit(
            id: "u", format: .native, waterfall: [], bidders: [bidder("timed", price: 2, ["behavior": "budget"])])
        let store = try await store(unit, clock: clock)
        let loading = Task { await load(store) }
        let budgets = { ScriptedBidder.budgets.withLock { $0[run + "timed"] ?? [] } }
        // The bid wait is 950 ms (the auction's 1 s less 50 for processing); 20 ms are kept to
        // read the answer.
        let asked = try await eventually { budgets().first }
        #expect(asked == .milliseconds(930))
        clock.advance(by: .milliseconds(200))
        let ad = try await loading.value.get()
        #expect(ad.responseInfo.bids?.map(\.outcome) == [.won])
        #expect(ad.responseInfo.bids?.first?.latencyMilliseconds == 200)
        // 200 ms later, 200 ms less; its ad then loads within its line item's 2 s.
        #expect(budgets() == [.milliseconds(930), .milliseconds(730), .seconds(2)])
    }

    @Test func noBidsErrorsAndWrongFormatsAreEachTheirBiddersOwn() async throws {
        let unit = try AdUnit(
            id: "u", format: .native, waterfall: [],
            bidders: [
                bidder("none", price: 1, ["behavior": "no_bid"]), bidder("broken", price: 1, ["behavior": "error"]),
                bidder("video", price: 7, ["behavior": "rewarded_ad"]), bidder("ok", price: 3),
            ])
        let ad = try await load(try await store(unit)).get()
        let bids = try #require(ad.responseInfo.bids)
        #expect(bids.map(\.outcome) == [.noBid, .error, .lost, .won])
        #expect(Set(notices()) == ["loss video 1 -", "win ok"], "the rewarded ad does not fit: a loss")
    }

    @Test func aBidsExpiryShortensTheUnitsButNeverLengthensIt() async throws {
        let clock = ManualClock()
        let unit = try AdUnit(
            id: "u", format: .native, waterfall: [], expiry: .seconds(600),
            bidders: [bidder("short", price: 2, ["exp_s": .int(120)])])
        let store = try await store(unit, clock: clock)
        let ad = try await store.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        clock.advance(by: .seconds(119))
        #expect(try await store.ad(ad.adID).adID == ad.adID)
        clock.advance(by: .seconds(1))
        await #expect(throws: AdLifecycleError(.adExpired, "ad '\(ad.adID)' expired; load another")) {
            try await store.impression(ad.adID)
        }

        let long = try AdUnit(
            id: "u", format: .native, waterfall: [], expiry: .seconds(60),
            bidders: [bidder("long", price: 2, ["exp_s": .int(3600)])])
        let longClock = ManualClock()
        let longStore = try await self.store(long, clock: longClock)
        let kept = try await longStore.load(AdLoadRequest(adUnit: "u", format: .native)).get()
        longClock.advance(by: .seconds(60))
        await #expect(throws: AdLifecycleError(.adExpired, "ad '\(kept.adID)' expired; load another")) {
            try await longStore.impression(kept.adID)
        }
    }

    @Test func aBlockedDomainBlocksItsSubdomainsOnly() {
        let quality = AdQuality(blockedAdvertisers: ["Blocked.Example"], blockedCategories: ["IAB7"])
        #expect(
            quality.exclusion(advertiserDomains: ["blocked.example"], categories: nil, attributes: nil)
                == .advertiserExcluded)
        #expect(
            quality.exclusion(advertiserDomains: ["ads.BLOCKED.example"], categories: nil, attributes: nil)
                == .advertiserExcluded)
        #expect(quality.exclusion(advertiserDomains: ["notblocked.example"], categories: nil, attributes: nil) == nil)
        #expect(
            quality.exclusion(advertiserDomains: nil, categories: ["IAB7-1"], attributes: nil) == nil,
            "ids, not prefixes")
        #expect(quality.exclusion(advertiserDomains: nil, categories: ["IAB7"], attributes: nil) == .categoryExcluded)
        #expect(
            AdQuality(requireAdvertiserDomain: true).exclusion(
                advertiserDomains: [" "], categories: nil, attributes: nil)
                == .advertiserExcluded)
    }

    @Test func bidsInAnotherCurrencyThanTheUnitsAreRefusedNotCompared() async throws {
        let unit = try AdUnit(
            id: "u", format: .native, waterfall: [], bidders: [bidder("dollars", price: 9)], currency: "EUR")
        let failure = await load(try await store(unit))
        guard case .failure(let failed) = failure else {
            Issue.record("a dollar bid served a euro unit")
            return
        }
        #expect(failed.info?.bids?.first?.outcome == .error)
        #expect(failed.info?.bids?.first?.message == "a bid in USD; the unit's prices are in EUR")
        #expect(failed.info?.bids?.first?.price == 9, "what it bid is kept to show why it was refused")
        #expect(failed.info?.bids?.first?.lossReason == .invalidResponse)
        #expect(notices() == ["loss dollars 3 -"], "an invalid bid response")
    }
}
