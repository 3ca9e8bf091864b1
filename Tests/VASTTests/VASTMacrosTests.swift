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
}
