import Client
import Foundation
import TestSupport
import Testing

/// Consent decisions through the daemon: the same identifier adapter allowed and denied by
/// each rule, the serving mode of an OpenRTB bid request as the local bidder received it, a
/// line item skipped, a cached signal withheld at once, an unused ad dropped.
struct ConsentRouteTests: MediationScenario {
    static let unit = "/openrtb/native"

    /// first-party-id as vendor 755's identifier (purpose 1 by consent, 2 by either basis),
    /// cached a minute; an OpenRTB unit attaching it and device-context, its line item vendor 755.
    static func config(_ server: FakeAdServer) -> [String: Any] {
        let consent: [String: Any] = [
            "gvl_vendor_id": 755, "purposes": [1], "legitimate_interest_purposes": [2], "identifier": true,
        ]
        let units: [String: Any] = [
            unit: [
                "format": "native", "currency": "EUR",
                "waterfall": [
                    [
                        // Generous: what is asserted is consent, not time, on a busy machine too.
                        "network": "openrtb", "parameter": "tag", "timeout_ms": 10_000,
                        "options": [
                            "endpoint": server.url("/bid"), "signals": ["device-context", "first-party-id"],
                            "currency": "EUR", "timeout_ms": 8000,
                        ],
                        "consent": ["gvl_vendor_id": 755],
                    ]
                ],
            ],
            native: Self.unit(
                "native",
                [
                    Self.testItem(native).merging(["consent": ["gvl_vendor_id": 755, "purposes": [1, 3]]]) { $1 },
                    Self.testItem(native),
                ]),
        ]
        return demoConfig(
            adapters: [
                ["name": "first-party-id", "recipients": ["demo"], "cache_ttl_ms": 60_000, "consent": consent],
                ["name": "device-context", "recipients": ["demo"]],
            ],
            extra: ["ad_units": units, "ad_networks": ["openrtb": ["setup": ["app": ["bundle": "tv.example"]]]]])
    }

    static func tc(_ change: (inout ConsentStrings.TC) -> Void = { _ in }) -> String {
        var tc = ConsentStrings.TC.consentingToEverything(vendor: 755)
        change(&tc)
        return tc.string
    }

    /// The `PUT /v1/privacy` body of `privacy`, ad tracking not limited.
    static func body(_ privacy: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["privacy": privacy.merging(["limit_ad_tracking": false]) { $1 }])
    }

    static func put(_ client: DaemonClient, _ privacy: [String: Any]) async throws {
        try await put(client, body(privacy))
    }

    static func put(_ client: DaemonClient, _ body: Data) async throws {
        let reply = try await client.request(.PUT, "/v1/privacy", json: body)
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
    }

    @Test func eachRuleAllowsOrDeniesTheIdentifierAndSetsTheServingMode() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid", .init(body: try AdSourceRouteTests.nativeBid(server, price: 1)))
        let table: [(String, [String: Any], String?, String)] = [
            ("TCF, everything", ["gdpr_applies": true, "tcf_consent": Self.tc()], nil, "personalized"),
            (
                "TCF, no vendor consent", ["gdpr_applies": true, "tcf_consent": Self.tc { $0.vendorConsents = [] }],
                "TCF: vendor 755 has no consent for purpose 1", "limited"
            ),
            (
                "TCF, purpose 2 by legitimate interest only, no 3 and 4",
                ["gdpr_applies": true, "tcf_consent": Self.tc { $0.purposeConsents = [1, 7, 9, 10] }], nil,
                "non_personalized"
            ),
            (
                "TCF, no purpose 1 consent",
                ["gdpr_applies": true, "tcf_consent": Self.tc { $0.purposeConsents.remove(1) }],
                "TCF: purpose 1 has no consent", "limited"
            ),
            (
                "TCF, purposes 3 and 4 on a legitimate interest only, which cannot carry them",
                [
                    "gdpr_applies": true,
                    "tcf_consent": Self.tc {
                        $0.purposeConsents.subtract([3, 4])
                        $0.purposeLegitimateInterests.formUnion([3, 4])
                    },
                ], nil, "non_personalized"
            ),
            (
                "TCF, consent required for purpose 2, only a legitimate interest",
                [
                    "gdpr_applies": true,
                    "tcf_consent": Self.tc {
                        $0.purposeConsents.remove(2)
                        $0.restrictions = [(2, 1, [755])]
                    },
                ], "TCF: purpose 2 has no consent", "limited"
            ),
            (
                "TCF, a legitimate interest required for purpose 2, only consent",
                [
                    "gdpr_applies": true,
                    "tcf_consent": Self.tc {
                        $0.vendorLegitimateInterests = []
                        $0.restrictions = [(2, 2, [755])]
                    },
                ], "TCF: vendor 755 has no legitimate interest for purpose 2", "limited"
            ),
            (
                "TCF, the identifier allowed but no basis for ads: limited, so not attached",
                [
                    "gdpr_applies": true,
                    "tcf_consent": Self.tc {
                        $0.purposeConsents = [1]
                        $0.purposeLegitimateInterests = [2]
                    },
                ], nil, "limited"
            ),
            (
                "TCF, purpose 1 not allowed by the publisher",
                ["gdpr_applies": true, "tcf_consent": Self.tc { $0.restrictions = [(1, 0, [755])] }],
                "TCF: the publisher does not allow vendor 755 purpose 1", "limited"
            ),
            (
                "TCF v2.0, made before 2023-10-01 (valid, below the minimum)",
                [
                    "gdpr_applies": true,
                    "tcf_consent": Self.tc {
                        $0.policyVersion = 2
                        $0.created = 1_693_526_400_000  // 2023-09-01
                        $0.lastUpdated = $0.created
                    },
                ], "TCF: policy version 2 is below 4 (privacy.min_tcf_policy_version)", "limited"
            ),
            (
                "TCF v2.3, vendor 755 consented but not disclosed",
                ["gdpr_applies": true, "tcf_consent": Self.tc { $0.disclosedVendors = [1, 2, 754] }],
                "TCF: vendor 755 was not disclosed to the user (DisclosedVendors)", "limited"
            ),
            (
                "TCF, last updated 400 days ago",
                [
                    "gdpr_applies": true,
                    "tcf_consent": Self.tc {
                        $0.lastUpdated = ConsentStrings.today - 400 * 86_400_000
                        $0.created = $0.lastUpdated
                    },
                ],
                "TCF: the TC string expired: last updated \(ConsentAgeRouteTests.iso(ConsentStrings.today - 400 * 86_400_000)), more than 395 days ago (privacy.max_consent_age_days)",
                "limited"
            ),
            (
                "usnat, sale opt-out", ["gpp": ConsentStrings.usnat(["SaleOptOut": 1]), "gpp_sid": [7]],
                "GPP usnat: SaleOptOut = 1 (the user opted out of sale)", "non_personalized"
            ),
            (
                "usnat, sharing opt-out", ["gpp": ConsentStrings.usnat(["SharingOptOut": 1])],
                "GPP usnat: SharingOptOut = 1 (the user opted out of sharing)", "non_personalized"
            ),
            (
                "usnat, targeted advertising opt-out", ["gpp": ConsentStrings.usnat(["TargetedAdvertisingOptOut": 1])],
                "GPP usnat: TargetedAdvertisingOptOut = 1 (the user opted out of targeted advertising)",
                "non_personalized"
            ),
            (
                "usnat, GPC", ["gpp": ConsentStrings.usnat(gpc: true)],
                "GPP usnat: Gpc = true (a Global Privacy Control signal)",
                "non_personalized"
            ),
            (
                "US Privacy, opted out", ["us_privacy": "1YYN"], "US Privacy: the user opted out of sale",
                "non_personalized"
            ),
            ("nothing applies", ["us_privacy": "1YNN"], nil, "personalized"),
        ]
        let cases = try table.map { ($0.0, try Self.body($0.1), $0.2, $0.3) }
        let daemon = try await InProcessDaemon(config: Self.config(server))
        try await daemon.run { client in
            for (index, (name, privacy, denial, mode)) in cases.enumerated() {
                try await Self.put(client, privacy)
                let result = try await client.collect(requestID: "r\(index)", adapters: ["first-party-id"])
                #expect(result.errors.first?.message == denial, "\(name)")
                #expect(result.signals.isEmpty == (denial != nil), "\(name)")
                if denial != nil { #expect(result.errors.first?.code.rawValue == "consent_missing") }

                let load = try await Self.post(
                    client, "/v1/ads", ["ad_unit": Self.unit, "format": "native", "force": true])
                #expect(
                    (load.json["response_info"] as? [String: Any])?["serving_mode"] as? String == mode,
                    "\(name): \(load.json)")
                let bid = try #require(server.requests("/bid").last?.json, "\(name)")
                let attached = ((bid["user"] as? [String: Any])?["ext"] as? [String: Any])?["secure_signals"]
                let sources = Set((attached as? [[String: Any]] ?? []).compactMap { $0["source"] as? String })
                // The identifier goes only where it is allowed and the mode is not limited.
                #expect(sources.contains("first-party-id") == (denial == nil && mode != "limited"), "\(name)")
                #expect(sources.contains("device-context"), "\(name)")
                #expect((bid["device"] as? [String: Any])?["ifa"] == nil)
            }
        }
    }

    @Test func aDeniedLineItemIsSkippedAndADeniedCachedSignalIsNotServedAgain() async throws {
        let server = try await FakeAdServer()
        let daemon = try await InProcessDaemon(config: Self.config(server))
        try await daemon.run { client in
            try await Self.put(client, ["gdpr_applies": true, "tcf_consent": Self.tc()])
            #expect(
                try await client.collect(requestID: "a", adapters: ["first-party-id"]).signals.first?.cached == false)
            #expect(
                try await client.collect(requestID: "b", adapters: ["first-party-id"]).signals.first?.cached == true)
            // The very next request after a change that denies it: no signal, cached or not.
            try await Self.put(client, ["gdpr_applies": true, "tcf_consent": Self.tc { $0.purposeConsents.remove(1) }])
            let denied = try await client.collect(requestID: "c", adapters: ["first-party-id"])
            #expect(denied.signals.isEmpty && denied.errors.first?.message == "TCF: purpose 1 has no consent")

            // The test unit's first line item needs purpose 1, denied now: skipped, the second fills.
            let load = try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            let attempts = try #require((load.json["response_info"] as? [String: Any])?["attempts"] as? [[String: Any]])
            #expect(attempts.map { $0["outcome"] as? String } == ["consent_missing", "filled"])
            #expect(attempts.first?["message"] as? String == "TCF: purpose 1 has no consent")
        }
    }

    @Test func aLoadUnderWayWhenThePrivacyStateChangesKeepsNothingTheNewStateWouldNotLoad() async throws {
        let server = try await FakeAdServer()
        var config = Self.config(server)
        config["ad_units"] = [
            // Long enough that the change lands during the load however busy the machine.
            Self.native: Self.unit("native", [Self.testItem(Self.native, ["delay_ms": 2000], timeout: 10_000)])
        ]
        let daemon = try await InProcessDaemon(config: config)
        try await daemon.run { client in
            try await Self.put(client, ["us_privacy": "1YNN"])
            let body = try JSONSerialization.data(withJSONObject: ["ad_unit": Self.native, "format": "native"])
            async let slow = client.request(.POST, "/v1/ads", json: body)
            try await Task.sleep(for: .milliseconds(300))
            try await Self.put(client, ["us_privacy": "1YYN"])
            let refused = try await slow
            #expect(refused.status == 404 && refused.apiError?.code == "no_fill")
            #expect(
                refused.apiError?.message
                    == "the privacy state changed during the load, and what it loaded no longer fits")
            // A load now is under the new state: non-personalised.
            let again = try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            #expect((again.json["response_info"] as? [String: Any])?["serving_mode"] as? String == "non_personalized")
        }
    }

    @Test func anUnusedAdLoadedUnderAnotherServingModeIsDroppedByAPrivacyChange() async throws {
        let server = try await FakeAdServer()
        let daemon = try await InProcessDaemon(config: Self.config(server))
        try await daemon.run { client in
            try await Self.put(client, ["us_privacy": "1YNN"])
            let load = try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            let id = try #require(load.json["ad_id"] as? String)
            #expect((load.json["response_info"] as? [String: Any])?["serving_mode"] as? String == "personalized")
            // The same mode: it stays.
            try await Self.put(client, ["us_privacy": "1NNN"])
            #expect(try await client.request(.GET, "/v1/ads/\(id)").status == 200)
            // Opted out of sale: it would be loaded non-personalised now, so it goes.
            try await Self.put(client, ["us_privacy": "1YYN"])
            let gone = try await client.request(.GET, "/v1/ads/\(id)")
            #expect(gone.status == 404 && gone.apiError?.code == "unknown_ad")
        }
    }
}
