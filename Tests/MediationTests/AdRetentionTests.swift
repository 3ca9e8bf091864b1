import Foundation
import SharedTypes
import Testing

@testable import Mediation

/// What the store keeps and when it lets go, as a plain value: no actor, no clock, no network.
struct AdRetentionTests {
    static let unit = AdUnit(id: "u", format: .native, waterfall: [], expiry: .seconds(60))

    /// A native ad of `unit` loaded at `loadedAt` on the store's clock.
    func ad(_ id: String, unit: AdUnit = Self.unit, at loadedAt: Duration = .zero, used: Bool = false) -> LoadedAd {
        let fill = Waterfall.Fill(
            ad: NetworkAd(content: .native(NativeAd(headline: id)), clickDestination: "https://example.com"),
            network: "test", tracksItself: false, info: ResponseInfo(attempts: [], network: "test"))
        var ad = LoadedAd(
            id: id, unit: unit, fill: fill, ssv: nil, preferences: NativeAdPreferences(), loadedAt: loadedAt, owner: nil
        )
        ad.impressionRecorded = used
        return ad
    }

    @Test func aUnitKeepsItsLatestUnusedAdsAndEveryUsedOne() {
        var retention = AdRetention()
        retention.keep(ad("used", used: true), now: .zero)
        retention.keep(ad("first"), now: .zero)
        for index in 1..<AdRetention.unusedKeptPerUnit { retention.keep(ad("later-\(index)"), now: .zero) }
        #expect(retention["first"] != nil, "16 loads: the oldest unused ad is still kept")
        retention.keep(ad("newest"), now: .zero)
        #expect(retention["first"] == nil, "the 17th load drops the oldest unused ad")
        #expect(retention["used"] != nil, "an ad that was used is kept until its time")
        #expect(retention.count == AdRetention.unusedKeptPerUnit + 1)
        let other = AdUnit(id: "v", format: .native, waterfall: [])
        retention.keep(ad("elsewhere", unit: other), now: .zero)
        #expect(retention["later-1"] != nil, "another unit's loads count for that unit only")
    }

    @Test func anAdIsForgottenAnHourAfterItExpires() {
        var retention = AdRetention()
        retention.keep(ad("early", at: .zero), now: .zero)
        retention.keep(ad("late", at: .seconds(30)), now: .seconds(30))
        let expiry = Duration.seconds(60)
        retention.sweep(now: expiry + AdRetention.keptAfterExpiry)
        #expect(retention["early"] != nil, "kept up to an hour past its expiry")
        retention.sweep(now: expiry + AdRetention.keptAfterExpiry + .milliseconds(1))
        #expect(retention["early"] == nil && retention["late"] != nil)
        retention.sweep(now: .seconds(30) + expiry + AdRetention.keptAfterExpiry + .milliseconds(1))
        #expect(retention.count == 0)
    }

    @Test func anUpdateNeverBringsBackAnAdThatWasDropped() {
        var retention = AdRetention()
        var ad = ad("gone")
        retention.keep(ad, now: .zero)
        retention.sweep(now: .seconds(60) + AdRetention.keptAfterExpiry + .seconds(1))
        ad.clickRecorded = true
        retention.update(ad)
        #expect(retention["gone"] == nil)
        retention.keep(self.ad("kept"), now: .zero)
        var kept = self.ad("kept")
        kept.clickRecorded = true
        retention.update(kept)
        #expect(retention["kept"]?.clickRecorded == true)
    }

    @Test func dropsOfAdsAlreadyGoneDoNotPileUp() {
        var retention = AdRetention()
        for index in 0..<10_000 { retention.keep(ad("ad-\(index)"), now: .zero) }
        #expect(retention.count == AdRetention.unusedKeptPerUnit)
        #expect(retention.pendingDrops <= 2 * retention.count + 1024 + 1)
    }
}

/// The store's cap (`limits.max_stored_ads`) and the short stay of a dismissed ad.
struct AdRetentionCapTests {
    static let units = (0..<8).map { AdUnit(id: "u\($0)", format: .native, waterfall: [], expiry: .seconds(60)) }

    func ad(_ id: String, unit: Int, at loadedAt: Duration = .zero, used: Bool = false) -> LoadedAd {
        AdRetentionTests().ad(id, unit: Self.units[unit], at: loadedAt, used: used)
    }

    @Test func overTheCapUsedAndExpiredAdsGoFirstThenTheOldestUnused() {
        var retention = AdRetention(capacity: 4)
        #expect(retention.keep(ad("expired", unit: 1, at: .zero), now: .zero) == 0)
        #expect(retention.keep(ad("fresh-0", unit: 0, at: .seconds(50)), now: .seconds(50)) == 0)
        #expect(retention.keep(ad("used", unit: 2, at: .seconds(55), used: true), now: .seconds(61)) == 0)
        #expect(retention.keep(ad("fresh-1", unit: 3, at: .seconds(60)), now: .seconds(61)) == 0)
        #expect(retention.count == 4)
        #expect(retention.keep(ad("fifth", unit: 4, at: .seconds(61)), now: .seconds(61)) == 0)
        #expect(retention["expired"] == nil && retention["used"] != nil, "the expired one goes first (it is older)")
        #expect(retention.keep(ad("sixth", unit: 5, at: .seconds(62)), now: .seconds(62)) == 0)
        #expect(retention["used"] == nil, "then the used one")
        #expect(retention.keep(ad("seventh", unit: 6, at: .seconds(63)), now: .seconds(63)) == 1, "counted")
        #expect(retention["fresh-0"] == nil, "then the oldest unused one")
        #expect(retention.count == 4)
        #expect(["fresh-1", "fifth", "sixth", "seventh"].allSatisfy { retention[$0] != nil })
    }

    @Test func aDismissedAdLeavesAMinuteAfterItsDismiss() {
        var retention = AdRetention(capacity: 10)
        retention.keep(ad("shown", unit: 0, used: true), now: .zero)
        retention.dismissed("shown", now: .seconds(5))
        retention.sweep(now: .seconds(5) + AdRetention.keptAfterDismiss)
        #expect(retention["shown"] != nil, "GET /v1/ads/{id} answers until a minute after the dismiss")
        retention.sweep(now: .seconds(5) + AdRetention.keptAfterDismiss + .milliseconds(1))
        #expect(retention["shown"] == nil)
    }

    /// Expiry is per unit: an expired ad of a short-lived unit goes before a fresh one loaded
    /// earlier for a long-lived unit.
    @Test func theAdThatExpiredGoesFirstWhateverItsUnit() {
        let long = AdUnit(id: "long", format: .native, waterfall: [], expiry: .seconds(3600))
        var retention = AdRetention(capacity: 2)
        retention.keep(AdRetentionTests().ad("long-lived", unit: long, at: .zero), now: .zero)
        retention.keep(ad("short-lived", unit: 1, at: .seconds(1)), now: .seconds(1))
        #expect(retention.keep(ad("new", unit: 2, at: .seconds(100)), now: .seconds(100)) == 0, "nothing unused went")
        #expect(retention["short-lived"] == nil && retention["long-lived"] != nil && retention["new"] != nil)
    }

    /// The schedule is rebuilt as drops of ads already gone pile up; a dismissed ad's minute
    /// survives it.
    @Test func aDismissedAdsMinuteSurvivesTheScheduleBeingRebuilt() {
        var retention = AdRetention(capacity: 100)
        retention.keep(ad("shown", unit: 0, used: true), now: .zero)
        retention.dismissed("shown", now: .seconds(5))
        for index in 0..<3000 {
            retention.keep(ad("filler-\(index)", unit: 1 + index % 7, at: .seconds(5)), now: .seconds(5))
        }
        retention.sweep(now: .seconds(5) + AdRetention.keptAfterDismiss + .milliseconds(1))
        #expect(retention["shown"] == nil)
    }

    @Test func thousandsOfLoadsKeepTheStoreAtItsCap() {
        var retention = AdRetention(capacity: 50)
        var dropped = 0
        for index in 0..<5000 {
            let now = Duration.milliseconds(index)
            dropped += retention.keep(ad("ad-\(index)", unit: index % 8, at: now), now: now)
            if index % 3 == 0, var shown = retention["ad-\(index - 1)"] {
                shown.impressionRecorded = true
                retention.update(shown)
            }
        }
        #expect(retention.count == 50)
        #expect(retention.pendingDrops <= 2 * 50 + 1024 + 1, "the schedule does not grow without bound")
        #expect(dropped > 0)
    }

    /// `limits.max_stored_ad_bytes`: ads are dropped, oldest unused first, while what they hold
    /// adds up to more; the bytes of ads that left are no longer counted.
    @Test func theStoreKeepsWhatItsAdsHoldUnderItsByteBound() {
        var retention = AdRetention(capacity: 100, byteCapacity: 1000)
        for index in 0..<4 {
            var held = ad("ad-\(index)", unit: index)
            held.bytes = 300
            #expect(retention.keep(held, now: .zero) == (index == 3 ? 1 : 0))
        }
        #expect(retention["ad-0"] == nil && retention.count == 3 && retention.bytes == 900)
        var big = ad("big", unit: 7)
        big.bytes = 1500
        retention.keep(big, now: .zero)
        #expect(retention.count == 1 && retention["big"] != nil, "the newest stays: the store checked it alone")
        retention.sweep(now: .seconds(100_000))
        #expect(retention.count == 0 && retention.bytes == 0)
    }

    /// A rewarded ad being shown never makes room, whatever comes after it: its reward is still
    /// to come. Once dismissed it may go.
    @Test func aRewardedAdBeingShownIsNeverDroppedForRoom() {
        let unit = AdUnit(id: "r", format: .rewarded, waterfall: [], expiry: .seconds(60))
        func rewarded(_ id: String, bytes: Int) -> LoadedAd {
            let fill = Waterfall.Fill(
                ad: NetworkAd(content: .rewarded(Reward(type: "coins", amount: 1)), clickDestination: ""),
                network: "test", tracksItself: false, info: ResponseInfo(attempts: [], network: "test"))
            var ad = LoadedAd(
                id: id, unit: unit, fill: fill, ssv: nil, preferences: NativeAdPreferences(), loadedAt: .zero,
                owner: nil)
            ad.bytes = bytes
            return ad
        }
        var retention = AdRetention(capacity: 2, byteCapacity: 1000)
        var playing = rewarded("playing", bytes: 600)
        retention.keep(playing, now: .zero)
        _ = playing.presentation.show()
        retention.update(playing)
        for index in 0..<5 { retention.keep(rewarded("big-\(index)", bytes: 600), now: .zero) }
        #expect(retention["playing"] != nil, "kept over both the count and the bytes")
        #expect(retention["big-4"] != nil, "and so is the ad just kept: the store answers with it")
        #expect(retention.count == 2 && retention["big-3"] == nil)
        _ = playing.presentation.apply([.dismiss])
        retention.update(playing)
        retention.keep(rewarded("after", bytes: 600), now: .zero)
        #expect(retention["playing"] == nil)
    }
}
