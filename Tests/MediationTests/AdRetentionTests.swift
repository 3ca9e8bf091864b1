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
            id: id, unit: unit, fill: fill, ssv: nil, preferences: NativeAdPreferences(), loadedAt: loadedAt)
        ad.impressionRecorded = used
        return ad
    }

    @Test func aUnitKeepsItsLatestUnusedAdsAndEveryUsedOne() {
        var retention = AdRetention()
        retention.keep(ad("used", used: true))
        retention.keep(ad("first"))
        for index in 1..<AdRetention.unusedKeptPerUnit { retention.keep(ad("later-\(index)")) }
        #expect(retention["first"] != nil, "16 loads: the oldest unused ad is still kept")
        retention.keep(ad("newest"))
        #expect(retention["first"] == nil, "the 17th load drops the oldest unused ad")
        #expect(retention["used"] != nil, "an ad that was used is kept until its time")
        #expect(retention.count == AdRetention.unusedKeptPerUnit + 1)
        let other = AdUnit(id: "v", format: .native, waterfall: [])
        retention.keep(ad("elsewhere", unit: other))
        #expect(retention["later-1"] != nil, "another unit's loads count for that unit only")
    }

    @Test func anAdIsForgottenAnHourAfterItExpires() {
        var retention = AdRetention()
        retention.keep(ad("early", at: .zero))
        retention.keep(ad("late", at: .seconds(30)))
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
        retention.keep(ad)
        retention.sweep(now: .seconds(60) + AdRetention.keptAfterExpiry + .seconds(1))
        ad.clickRecorded = true
        retention.update(ad)
        #expect(retention["gone"] == nil)
        retention.keep(self.ad("kept"))
        var kept = self.ad("kept")
        kept.clickRecorded = true
        retention.update(kept)
        #expect(retention["kept"]?.clickRecorded == true)
    }

    @Test func dropsOfAdsAlreadyGoneDoNotPileUp() {
        var retention = AdRetention()
        for index in 0..<10_000 { retention.keep(ad("ad-\(index)")) }
        #expect(retention.count == AdRetention.unusedKeptPerUnit)
        #expect(retention.pendingDrops <= 2 * retention.count + 1024 + 1)
    }
}
