import API
import Client
import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon

/// `GET /v1/privacy/decisions` for two apps under different states and a third under none:
/// each adapter, line item and bidder allowed or denied with the reason its request would
/// meet, each serving mode with why it is not personalised; and the loads and signals then
/// asked for agree with it.
struct PrivacyDecisionsRouteTests: MediationScenario {
    static let news = PeerCredentials(pid: getpid(), uid: 1001, gid: 1001)
    static let quiz = PeerCredentials(pid: getpid(), uid: 1002, gid: 1002)
    static let other = PeerCredentials(pid: getpid(), uid: 1004, gid: 1004)
    static let texasOptOut = "GPP ustx: TargetedAdvertisingOptOut = 1 (the user opted out of targeted advertising)"

    /// News may carry the advertising id, read from `idFile`; quiz and other may not.
    static func config(_ server: FakeAdServer, idFile: String) -> [String: Any] {
        var config = ConsentRouteTests.config(server)
        config["advertising_id"] = ["file": idFile]
        var units = config["ad_units"] as? [String: Any] ?? [:]
        var bidder = AuctionRouteTests.bidder(server, "id-bidder")
        bidder["consent"] = ["gvl_vendor_id": 755, "identifier": true]
        units["/auction/native"] = [
            "format": "native", "currency": "EUR", "bidders": [bidder],
            "waterfall": [Self.testItem(Self.native)],
        ]
        config["ad_units"] = units
        config["access"] = ["allowed_uids": [1001, 1002, 1004]]
        config["apps"] = [
            "registered": [
                "tv.example.news": ["match": ["uid": 1001], "capabilities": ["signals", "ads", "advertising_id"]],
                "tv.example.quiz": ["match": ["uid": 1002]],
                "tv.example.other": ["match": ["uid": 1004]],
            ]
        ]
        return config
    }

    static func `as`<T>(_ peer: PeerCredentials, _ body: () async throws -> T) async rethrows -> T {
        try await PeerCredentialScope.$current.withValue(peer) { try await body() }
    }

    @Test func eachAppSeesItsOwnDecisionsAndItsLoadsMeetThem() async throws {
        let server = try await FakeAdServer()
        server.answer("*", .init(status: 200, contentType: "image/gif"))
        server.answer("/bid", .init(body: try AdSourceRouteTests.nativeBid(server, price: 1)))
        let scratch = try TemporaryDirectory()
        try "6d3f2c1a-0b9e-4f7d-8a6c-5e4b3a2d1c0f".write(toFile: scratch.path("ifa"), atomically: true, encoding: .utf8)
        let daemon = try await InProcessDaemon(config: Self.config(server, idFile: scratch.path("ifa")))
        try await daemon.run { client in
            let texas = ConsentStrings.usState(16, ["TargetedAdvertisingOptOut": 1], gpc: false)
            try await Self.as(Self.news) { try await ConsentRouteTests.put(client, ["gpp": texas, "gpp_sid": [16]]) }
            let noStorage = ConsentRouteTests.tc { $0.purposeConsents.remove(1) }
            try await Self.as(Self.quiz) {
                try await ConsentRouteTests.put(client, ["gdpr_applies": true, "tcf_consent": noStorage])
            }

            let news = try await Self.as(Self.news) { try await client.privacyDecisions() }
            #expect(news.app == "tv.example.news" && news.stateInForce == "app")
            #expect(
                news.adapters == [
                    AdapterDecision(adapter: "first-party-id", allowed: false, reason: Self.texasOptOut),
                    AdapterDecision(adapter: "device-context", allowed: true, reason: nil),
                ])
            #expect(news.adUnits.map(\.adUnit) == ["/auction/native", Self.native, ConsentRouteTests.unit].sorted())
            let newsUnits = Dictionary(uniqueKeysWithValues: news.adUnits.map { ($0.adUnit, $0) })
            let auction = try #require(newsUnits["/auction/native"])
            #expect(auction.advertisingID == ConsentVerdict(allowed: false, reason: Self.texasOptOut))
            #expect(
                auction.bidders == [
                    LineItemDecision(
                        network: "openrtb", parameter: "id-bidder", allowed: false, reason: Self.texasOptOut,
                        servingMode: .nonPersonalized, servingModeReason: Self.texasOptOut)
                ])
            #expect(
                newsUnits[ConsentRouteTests.unit]?.lineItems == [
                    LineItemDecision(
                        network: "openrtb", parameter: "tag", allowed: true, reason: nil,
                        servingMode: .nonPersonalized, servingModeReason: Self.texasOptOut)
                ])

            let quiz = try await Self.as(Self.quiz) { try await client.privacyDecisions() }
            let storage = "TCF: purpose 1 has no consent"
            #expect(quiz.app == "tv.example.quiz" && quiz.stateInForce == "app")
            #expect(quiz.adapters.first == AdapterDecision(adapter: "first-party-id", allowed: false, reason: storage))
            let quizUnits = Dictionary(uniqueKeysWithValues: quiz.adUnits.map { ($0.adUnit, $0) })
            #expect(
                quizUnits[ConsentRouteTests.unit]?.lineItems == [
                    LineItemDecision(
                        network: "openrtb", parameter: "tag", allowed: true, reason: nil, servingMode: .limited,
                        servingModeReason: storage)
                ])
            #expect(
                quizUnits[ConsentRouteTests.unit]?.advertisingID
                    == ConsentVerdict(
                        allowed: false, reason: "the app is not granted advertising_id: its loads carry none"),
                "as a load decides it: the app's capability first")
            // The test unit's first line item needs purposes 1 and 3; its second, nothing.
            #expect(quizUnits[Self.native]?.lineItems.map(\.allowed) == [false, true])
            #expect(quizUnits[Self.native]?.lineItems.first?.reason == storage)

            // An app with no state, and no device state: only what needs nothing runs.
            let other = try await Self.as(Self.other) { try await client.privacyDecisions() }
            #expect(other.stateInForce == "none")
            #expect(
                other.adapters.map(\.reason) == ["no privacy state has been set", nil],
                "\(other.adapters)")

            // What a request meets is what the decisions said.
            for (peer, decisions) in [(Self.news, news), (Self.quiz, quiz)] {
                let result = try await Self.as(peer) {
                    try await client.collect(requestID: "r", adapters: ["first-party-id"])
                }
                #expect(result.errors.first?.message == decisions.adapters.first?.reason)
                let load = try await Self.as(peer) {
                    try await Self.post(
                        client, "/v1/ads", ["ad_unit": ConsentRouteTests.unit, "format": "native", "force": true])
                }
                let mode = (load.json["response_info"] as? [String: Any])?["serving_mode"] as? String
                let expected = decisions.adUnits.first { $0.adUnit == ConsentRouteTests.unit }?.lineItems.first
                #expect(mode == expected?.servingMode.rawValue, "\(load.json)")
            }
        }
    }
}
