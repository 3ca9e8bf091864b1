import API
import Testing

/// The endpoint table: each route once, and paths filled in as a client must send them.
struct EndpointTests {
    @Test func parametersFillTheirPlacesEachEncodedAsOneSegment() {
        #expect(Endpoints.ad.path("ad-1") == "/v1/ads/ad-1")
        #expect(Endpoints.impression.path("a/b c") == "/v1/ads/a%2Fb%20c/impression")
        #expect(Endpoints.claimReward.path("tx:1") == "/v1/rewards/tx%3A1/claim")
        #expect(Endpoints.resetAdapter.path("..") == "/v1/adapters/%2E%2E/reset", "never a dot-segment")
        #expect(Endpoints.resetAdapter.parameterNames == ["name"])
        #expect(Endpoints.health.path() == "/v1/health")
    }

    @Test func aQueryIsEncodedAndLeftOutWhenEmpty() {
        #expect(Endpoints.events.path(query: []) == "/v1/events")
        #expect(
            Endpoints.events.path(query: [("ad_unit", "/6499/example/rewarded"), ("ad_id", "x&y")])
                == "/v1/events?ad_unit=%2F6499%2Fexample%2Frewarded&ad_id=x%26y")
        #expect(Endpoints.events.path(query: [("ad_unit", "a.b")]) == "/v1/events?ad_unit=a%2Eb")
    }

    @Test func eachRouteIsListedOnceAndOnlyOwedAnswersWaitForTheLedger() {
        #expect(Set(Endpoints.all).count == Endpoints.all.count)
        #expect(Set(Endpoints.all.map(\.description)).count == Endpoints.all.count)
        let owed = Endpoints.all.filter { $0.acknowledges == .owed }.map(\.description)
        #expect(
            owed == [
                "POST /v1/ads", "POST /v1/ads/{id}/impression", "POST /v1/ads/{id}/click", "POST /v1/ads/{id}/show",
                "POST /v1/ads/{id}/progress", "POST /v1/ads/{id}/dismiss", "POST /v1/ads/{id}/error",
            ])
        #expect(Endpoints.signals.acknowledges == .nothingOwed && Endpoints.setPrivacy.acknowledges == .nothingOwed)
    }
}
