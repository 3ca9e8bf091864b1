import Client
import Foundation
import TestSupport
import Testing

@testable import Daemon

/// A TC string's dates through the daemon, on its clock: one nearly 13 months old serves the
/// identifier until time passes it (`privacy.max_consent_age_days`, 395), and then the same
/// state in force denies it and the decoded view says it expired; one dated days ahead is refused.
struct ConsentAgeRouteTests: MediationScenario {
    static let day: Int64 = 86_400_000

    static func put(_ client: DaemonClient, _ tc: ConsentStrings.TC) async throws -> DaemonClient.Reply {
        let body = try JSONSerialization.data(withJSONObject: [
            "privacy": ["limit_ad_tracking": false, "gdpr_applies": true, "tcf_consent": tc.string]
        ])
        return try await client.request(.PUT, "/v1/privacy", json: body)
    }

    static func expiry(_ client: DaemonClient) async throws -> [String: Any] {
        let decoded = try await client.request(.GET, "/v1/privacy/decoded")
        let view = try JSONSerialization.jsonObject(with: decoded.body) as? [String: Any]
        return try #require(view?["tcf_expiry"] as? [String: Any], "\(String(decoding: decoded.body, as: UTF8.self))")
    }

    @Test func consentExpiresWhileTheDaemonRuns() async throws {
        let daemon = try await InProcessDaemon(
            config: demoConfig(adapters: [["name": "first-party-id", "recipients": ["demo"], "cache_ttl_ms": 60_000]]))
        try await daemon.run { client in
            var tc = ConsentStrings.TC.consentingToEverything(vendor: 755)
            tc.lastUpdated = ConsentStrings.today - 394 * Self.day
            tc.created = tc.lastUpdated
            let set = try await Self.put(client, tc)
            #expect(set.status == 200, "\(String(decoding: set.body, as: UTF8.self))")
            #expect(try await client.collect(requestID: "fresh", adapters: ["first-party-id"]).errors.isEmpty)
            let fresh = try await Self.expiry(client)
            #expect(fresh["expired"] as? Bool == false && fresh["source"] as? String == "tcf_consent")
            #expect((fresh["expires_at"] as? NSNumber)?.int64Value == tc.lastUpdated + 395 * Self.day)

            // Two days on, on the daemon's clock: the same state, no longer consent.
            daemon.application.clock.advance(by: .seconds(2 * 86_400))
            let expired = try await client.collect(requestID: "old", adapters: ["first-party-id"])
            #expect(expired.signals.isEmpty)
            #expect(expired.errors.first?.code.rawValue == "consent_missing")
            #expect(
                expired.errors.first?.message
                    == "TCF: the TC string expired: last updated \(Self.iso(tc.lastUpdated)), more than 395 days ago (privacy.max_consent_age_days)"
            )
            #expect(try await Self.expiry(client)["expired"] as? Bool == true)
        }
    }

    /// A ready ad loaded under consent that then expires is no longer ready, with no new state
    /// set: the unit's status says so, and the next load is made under the state as it now
    /// stands (the line item that needed the consent denied) rather than handing the old ad out.
    @Test func aReadyAdIsNoLongerReadyOnceItsConsentExpires() async throws {
        let consenting = Self.testItem(Self.native).merging(["consent": ["gvl_vendor_id": 755, "purposes": [1, 3]]]) {
            $1
        }
        let units = [Self.native: Self.unit("native", [consenting, Self.testItem(Self.native)])]
        let daemon = try await InProcessDaemon(config: Self.config(units: units))
        try await daemon.run { client in
            var tc = ConsentStrings.TC.consentingToEverything(vendor: 755)
            tc.lastUpdated = ConsentStrings.today - 394 * Self.day
            tc.created = tc.lastUpdated
            #expect(try await Self.put(client, tc).status == 200)
            let first = try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            let firstID = try #require(first.json["ad_id"] as? String, "\(first.json)")
            let ready = { try await client.adUnits().first { $0.id == Self.native }?.ready }
            #expect(try await ready() == true)
            let again = try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            #expect(again.json["ad_id"] as? String == firstID, "handed out again while it fits")

            daemon.application.clock.advance(by: .seconds(2 * 86_400))
            #expect(try await ready() == false, "its consent expired: no longer a ready ad")
            let later = try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            #expect(later.status == 200, "\(later.json)")
            #expect(try #require(later.json["ad_id"] as? String) != firstID)
            let attempts = (later.json["response_info"] as? [String: Any])?["attempts"] as? [[String: Any]]
            #expect(attempts?.map { $0["outcome"] as? String } == ["consent_missing", "filled"], "\(later.json)")
        }
    }

    @Test func aStringDatedMoreThanADayAheadIsRefused() async throws {
        let daemon = try await InProcessDaemon(config: demoConfig(adapters: []))
        try await daemon.run { client in
            var tc = ConsentStrings.TC.consentingToEverything(vendor: 755)
            tc.lastUpdated = ConsentStrings.today + 3 * Self.day
            let refused = try await Self.put(client, tc)
            #expect(refused.status == 400 && refused.apiError?.code == "invalid_consent")
            #expect(
                refused.apiError?.message
                    == "tcf_consent: LastUpdated is \(Self.iso(tc.lastUpdated)), more than a day in the future")
            let none = try await client.request(.GET, "/v1/privacy")
            #expect(String(decoding: none.body, as: UTF8.self) == "{\"privacy\":null}\n", "the state in force stays")
        }
    }

    /// `milliseconds` as its UTC day.
    static func iso(_ milliseconds: Int64) -> String {
        String(Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601).prefix(10))
    }
}
