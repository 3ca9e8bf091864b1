import Foundation
import Testing

@testable import VAST

@Suite struct VASTMacrosTests {
    /// 2023-11-14T22:13:20.250Z
    static let now = Date(timeIntervalSince1970: 1_700_000_000.25)

    @Test func errorCodeTimestampAndCacheBustingAreReplaced() {
        let expanded = VASTMacros.expand(
            "https://t.test/e?code=[ERRORCODE]&ts=[TIMESTAMP]&cb=[CACHEBUSTING]", errorCode: .noAdsAfterWrapper,
            now: Self.now)
        #expect(expanded.hasPrefix("https://t.test/e?code=303&ts=2023-11-14T22%3A13%3A20.250Z&cb="))
        let cacheBuster = expanded.split(separator: "=").last.map(String.init) ?? ""
        #expect(cacheBuster.count == 8)
        #expect(cacheBuster.allSatisfy { $0.isNumber })
    }

    @Test func theSampleErrorURLGetsItsCode() {
        #expect(
            VASTMacros.expand("http://example.com/error_[ERRORCODE]", errorCode: .noSupportedMediaFile)
                == "http://example.com/error_403")
    }

    @Test func withoutAnErrorCodeTheMacroStays() {
        #expect(VASTMacros.expand("https://t.test/e?c=[ERRORCODE]") == "https://t.test/e?c=[ERRORCODE]")
    }

    @Test func unknownMacrosAndOtherFormsAreLeftAlone() {
        let url = "https://t.test/x?p=[ADPLAYHEAD]&cb=%%CACHEBUSTER%%&a=[AD_MT]&r=[random]"
        #expect(VASTMacros.expand(url, errorCode: .xmlParse, now: Self.now) == url)
    }

    @Test func eachCallDrawsAFreshCacheBuster() {
        let values = Set((0..<20).map { _ in VASTMacros.expand("[CACHEBUSTING]") })
        #expect(values.count > 1)
        #expect(values.allSatisfy { $0.count == 8 })
    }

    @Test func timestampIsISO8601UTCWithMilliseconds() {
        #expect(VASTMacros.timestamp(Self.now) == "2023-11-14T22:13:20.250Z")
        #expect(VASTMacros.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }

    @Test func everyOccurrenceIsReplaced() {
        let expanded = VASTMacros.expand("[ERRORCODE]/[ERRORCODE]", errorCode: .schema)
        #expect(expanded == "101/101")
    }

    @Test func aPlayersErrorCodeOutsideTheReadersListIsFilledToo() {
        #expect(VASTMacros.expand("https://t.test/e?c=[ERRORCODE]", code: 405) == "https://t.test/e?c=405")
        #expect(VASTMacros.expand("https://t.test/e?c=[ERRORCODE]", code: nil) == "https://t.test/e?c=[ERRORCODE]")
    }

    @Test func anAdTagsRequestMacrosAreFilledEncodedAndListsJoinedByCommas() {
        var values = VASTMacros.RequestValues()
        values.ifa = .text("6d92078a-8246-4ba4-ae5b-76104861e7dc")
        values.ifaType = .text("dpid")
        values.limitAdTracking = .text("0")
        values.appBundle = .text("com.example.news")
        values.storeURL = .text("https://store.example/app?id=1")
        values.regulations = .list(["gdpr", "coppa"])
        values.gdprConsent = .text("CO-abc_def")
        values.gppString = .text("DBABMA~CPX")
        values.gppSectionIDs = .list(["2", "7"])
        let tag =
            "https://ads.test/vast?ifa=[IFA]&t=[IFATYPE]&lmt=[LIMITADTRACKING]&b=[APPBUNDLE]&s=[STOREURL]"
            + "&r=[REGULATIONS]&c=[GDPRCONSENT]&g=[GPPSTRING]&sid=[GPPSECTIONID]&ts=[TIMESTAMP]"
        #expect(
            VASTMacros.expand(tag, request: values, now: Self.now)
                == "https://ads.test/vast?ifa=6d92078a-8246-4ba4-ae5b-76104861e7dc&t=dpid&lmt=0&b=com.example.news"
                + "&s=https%3A%2F%2Fstore.example%2Fapp%3Fid%3D1&r=gdpr,coppa&c=CO-abc_def&g=DBABMA~CPX&sid=2,7"
                + "&ts=2023-11-14T22%3A13%3A20.250Z")
    }

    @Test func whatIsNotKnownIsMinusOneAndWhatIsWithheldMinusTwo() {
        var values = VASTMacros.RequestValues()
        values.ifa = .withheld
        values.regulations = .list([])
        let expanded = VASTMacros.expand(
            "x?ifa=[IFA]&t=[IFATYPE]&b=[APPBUNDLE]&r=[REGULATIONS]&cb=[CACHEBUSTING]&p=[ADPLAYHEAD]", request: values)
        #expect(expanded.hasPrefix("x?ifa=-2&t=-1&b=-1&r=&cb="))
        #expect(expanded.hasSuffix("&p=[ADPLAYHEAD]"), "a macro the daemon cannot know stays as it is")
    }
}
