import Mediation
import SharedTypes
import Testing

/// Which advertising id a load's bid requests carry: none without the app's `advertising_id`,
/// zeros whenever ad tracking is limited (by the platform's reading or the app's privacy state).
struct AdvertisingIDForLoadTests {
    static let id = AdvertisingID(ifa: "6d92078a-8246-4ba4-ae5b-76104861e7dc", type: .dpid, limitAdTracking: false)
    static let allowed = AppIdentity(id: "tv.example.news", capabilities: [.ads, .advertisingID])
    static let notAllowed = AppIdentity(id: "tv.example.games", capabilities: [.ads])

    @Test func anAppWithTheCapabilityGetsTheIDAsItIs() {
        #expect(AdvertisingID.forLoad(Self.id, app: Self.allowed, limitAdTracking: false) == Self.id)
    }

    @Test func anAppWithoutTheCapabilityOrNoAppOrNoIDGetsNone() {
        #expect(AdvertisingID.forLoad(Self.id, app: Self.notAllowed, limitAdTracking: false) == nil)
        #expect(AdvertisingID.forLoad(Self.id, app: nil, limitAdTracking: false) == nil)
        #expect(AdvertisingID.forLoad(nil, app: Self.allowed, limitAdTracking: false) == nil)
        let anonymous = AppIdentity(id: "uid:1000", capabilities: Set(AppCapability.byDefault))
        #expect(AdvertisingID.forLoad(Self.id, app: anonymous, limitAdTracking: true) == nil)
    }

    @Test func limitAdTrackingByThePrivacyStateOrThePlatformGivesZerosOfTheSameType() {
        let zeros = AdvertisingID(ifa: AdvertisingID.zeros, type: .dpid, limitAdTracking: true)
        #expect(AdvertisingID.forLoad(Self.id, app: Self.allowed, limitAdTracking: true) == zeros)
        var platformLimited = Self.id
        platformLimited.limitAdTracking = true
        #expect(AdvertisingID.forLoad(platformLimited, app: Self.allowed, limitAdTracking: false) == zeros)
        let session = AdvertisingID(ifa: "s-1", type: .sessionid, limitAdTracking: false)
        #expect(AdvertisingID.forLoad(session, app: Self.allowed, limitAdTracking: true)?.type == .sessionid)
    }
}
