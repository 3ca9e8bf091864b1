import Client
import Foundation
import TestSupport
import Testing

/// Google's Additional Consent through the daemon, as a real local bidder receives it: the
/// string in `user.ext.ConsentedProvidersSettings.consented_providers` where the GDPR applies
/// (and only there), a line item declaring a Google ATP id skipped until that provider has
/// consent, and an adapter declaring one denied alike; the decoded view shows the providers.
struct AdditionalConsentRouteTests: MediationScenario {
    static let unit = "/openrtb/atp"
    static let tc = ConsentStrings.TC.consentingToEverything(vendor: 755).string

    /// An OpenRTB unit whose first line item is Google ATP 89's and whose second needs nothing;
    /// first-party-id declared as ATP 89's identifier.
    static func config(_ server: FakeAdServer) -> [String: Any] {
        func item(_ consent: [String: Any]?) -> [String: Any] {
            var item: [String: Any] = [
                "network": "openrtb", "parameter": "tag", "timeout_ms": 10_000,
                "options": ["endpoint": server.url("/bid"), "currency": "EUR", "timeout_ms": 8000],
            ]
            item["consent"] = consent
            return item
        }
        let units: [String: Any] = [
            unit: ["format": "native", "currency": "EUR", "waterfall": [item(["google_atp_id": 89]), item(nil)]]
        ]
        return demoConfig(
            adapters: [
                [
                    "name": "first-party-id", "recipients": ["demo"],
                    "consent": ["identifier": true, "google_atp_id": 89],
                ]
            ],
            extra: ["ad_units": units, "ad_networks": ["openrtb": ["setup": ["app": ["bundle": "tv.example"]]]]])
    }

    static func put(_ client: DaemonClient, _ privacy: [String: Any]) async throws {
        let body = try JSONSerialization.data(
            withJSONObject: ["privacy": privacy.merging(["limit_ad_tracking": false, "tcf_consent": tc]) { $1 }])
        let reply = try await client.request(.PUT, "/v1/privacy", json: body)
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
    }

    /// What the bidder's last request carried in `user.ext.ConsentedProvidersSettings`.
    static func consentedProviders(_ server: FakeAdServer) throws -> Any? {
        let bid = try #require(server.requests("/bid").last?.json)
        let ext = (bid["user"] as? [String: Any])?["ext"] as? [String: Any]
        return (ext?["ConsentedProvidersSettings"] as? [String: Any])?["consented_providers"]
    }

    @Test func theBidderSeesTheStringAndAnATPLineItemWaitsForItsProvidersConsent() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid", .init(body: try AdSourceRouteTests.nativeBid(server, price: 1)))
        let daemon = try await InProcessDaemon(config: Self.config(server))
        try await daemon.run { client in
            // ATP 89 disclosed, not consented: its line item is skipped, the next one asks.
            try await Self.put(client, ["gdpr_applies": true, "addtl_consent": "2~1.35~dv.89"])
            let skipped = try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native"])
            let attempts = try #require(
                (skipped.json["response_info"] as? [String: Any])?["attempts"] as? [[String: Any]], "\(skipped.json)")
            #expect(attempts.map { $0["outcome"] as? String } == ["consent_missing", "filled"])
            #expect(
                attempts.first?["message"] as? String
                    == "Additional Consent: Google ATP 89 was disclosed to the user but not consented to (addtl_consent)"
            )
            #expect(try Self.consentedProviders(server) as? String == "2~1.35~dv.89")
            #expect(server.requests("/bid").count == 1)
            let denied = try await client.collect(requestID: "a", adapters: ["first-party-id"])
            #expect(denied.signals.isEmpty && denied.errors.first?.message == attempts.first?["message"] as? String)

            // Consented: the first line item bids, and the signal comes.
            try await Self.put(client, ["gdpr_applies": true, "addtl_consent": "2~1.35.89~dv."])
            let filled = try await Self.post(
                client, "/v1/ads", ["ad_unit": Self.unit, "format": "native", "force": true])
            let first = (filled.json["response_info"] as? [String: Any])?["attempts"] as? [[String: Any]]
            #expect(first?.map { $0["outcome"] as? String } == ["filled"], "\(filled.json)")
            #expect(try Self.consentedProviders(server) as? String == "2~1.35.89~dv.")
            #expect(try await client.collect(requestID: "b", adapters: ["first-party-id"]).errors.isEmpty)
            let decoded = try await client.request(.GET, "/v1/privacy/decoded")
            let view = try #require(try JSONSerialization.jsonObject(with: decoded.body) as? [String: Any])
            let additional = try #require(view["addtl_consent"] as? [String: Any])
            #expect(additional["consented_providers"] as? [Int] == [1, 35, 89])
            #expect(additional["disclosed_providers"] as? [Int] == [] && additional["version"] as? Int == 2)

            // Where the GDPR does not apply, the string is neither read nor sent.
            try await Self.put(client, ["gdpr_applies": false, "addtl_consent": "1~1"])
            _ = try await Self.post(client, "/v1/ads", ["ad_unit": Self.unit, "format": "native", "force": true])
            #expect(try Self.consentedProviders(server) == nil)

            // A malformed one is refused, naming the string; the state in force stays.
            let refused = try await client.request(
                .PUT, "/v1/privacy",
                json: try JSONSerialization.data(withJSONObject: [
                    "privacy": ["limit_ad_tracking": false, "addtl_consent": "2~1.x~dv."]
                ]))
            #expect(refused.status == 400 && refused.apiError?.code == "invalid_consent")
            #expect(
                refused.apiError?.message == "addtl_consent: consented ids: item 2 is not an id from 1 to 999999999")
            let kept = try await client.request(.GET, "/v1/privacy")
            #expect(String(decoding: kept.body, as: UTF8.self).contains(#""addtl_consent":"1~1""#))
        }
    }
}
