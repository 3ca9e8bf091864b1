import Client
import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon

/// Each app's own privacy state, with the device's as its default: one app's state leaves
/// another's decisions as they were; the device's limit-ad-tracking applies to every app.
struct AppPrivacyTests: MediationScenario {
    static let news = PeerCredentials(pid: getpid(), uid: 1001, gid: 1001)
    static let quiz = PeerCredentials(pid: getpid(), uid: 1002, gid: 1002)
    static let settings = PeerCredentials(pid: getpid(), uid: 1003, gid: 1003)

    static func appsConfig() -> [String: Any] {
        var config = demoConfig(
            adapters: [["name": "first-party-id", "recipients": ["demo"], "cache_ttl_ms": 60_000]],
            extra: ["ad_units": [Self.native: Self.unit("native", [Self.testItem(Self.native)])]])
        config["access"] = ["allowed_uids": [1001, 1002, 1003]]
        config["apps"] = [
            "registered": [
                "tv.example.news": ["match": ["uid": 1001]],
                "tv.example.quiz": ["match": ["uid": 1002]],
                "tv.example.settings": ["match": ["uid": 1003], "capabilities": ["device_privacy"]],
            ]
        ]
        return config
    }

    static func `as`<T>(_ peer: PeerCredentials, _ body: () async throws -> T) async rethrows -> T {
        try await PeerCredentialScope.$current.withValue(peer) { try await body() }
    }

    static func put(_ client: DaemonClient, _ path: String, _ privacy: [String: Any]?) async throws -> (UInt, String?) {
        let body = try JSONSerialization.data(withJSONObject: ["privacy": privacy.map { $0 as Any } ?? NSNull()])
        let reply = try await client.request(.PUT, path, json: body)
        return (reply.status, reply.apiError?.code)
    }

    /// Why the first-party id is denied to the app asking (nil: it is served).
    static func denial(_ client: DaemonClient) async throws -> String? {
        let result = try await client.collect(requestID: "r", adapters: ["first-party-id"])
        return result.errors.first.map { "\($0.code.rawValue): \($0.message)" }
    }

    /// The serving mode of a load by the app asking.
    static func servingMode(_ client: DaemonClient) async throws -> String? {
        let load = try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native", "force": true])
        return (load.json["response_info"] as? [String: Any])?["serving_mode"] as? String
    }

    @Test func eachAppIsDecidedForUnderItsOwnStateWithTheDevicesAsDefault() async throws {
        let daemon = try await InProcessDaemon(config: Self.appsConfig())
        try await daemon.run { client in
            let consent: [String: Any] = ["limit_ad_tracking": false]
            // Nothing set anywhere: no consent for anyone.
            #expect(
                try await Self.as(Self.quiz) { try await Self.denial(client) }?.hasPrefix("consent_missing") == true)
            // The platform sets the device's: every app that set none stands under it.
            #expect(
                try await Self.as(Self.settings) { try await Self.put(client, "/v1/device/privacy", consent) }.0 == 200)
            #expect(try await Self.as(Self.quiz) { try await Self.denial(client) } == nil)
            #expect(try await Self.as(Self.news) { try await Self.denial(client) } == nil)
            // The news app's user limits ad tracking in the news app: the quiz app is unchanged.
            let limited: [String: Any] = ["limit_ad_tracking": true]
            #expect(try await Self.as(Self.news) { try await Self.put(client, "/v1/privacy", limited) }.0 == 200)
            #expect(
                try await Self.as(Self.news) { try await Self.denial(client) }
                    == "consent_missing: the user limits ad tracking")
            #expect(try await Self.as(Self.news) { try await Self.servingMode(client) } == "non_personalized")
            #expect(try await Self.as(Self.quiz) { try await Self.denial(client) } == nil)
            #expect(try await Self.as(Self.quiz) { try await Self.servingMode(client) } == "personalized")
            // Each app reads its own state back; the device's is the platform's.
            let newsState = try await Self.as(Self.news) { try await client.request(.GET, "/v1/privacy") }
            #expect(String(decoding: newsState.body, as: UTF8.self).contains(#""limit_ad_tracking":true"#))
            let quizState = try await Self.as(Self.quiz) { try await client.request(.GET, "/v1/privacy") }
            #expect(quizState.body == Data("{\"privacy\":null}\n".utf8))
            // The device's limit applies to every app, whatever its own state says.
            #expect(try await Self.as(Self.news) { try await Self.put(client, "/v1/privacy", consent) }.0 == 200)
            #expect(try await Self.as(Self.news) { try await Self.denial(client) } == nil)
            #expect(
                try await Self.as(Self.settings) { try await Self.put(client, "/v1/device/privacy", limited) }.0 == 200)
            #expect(
                try await Self.as(Self.news) { try await Self.denial(client) }?.contains("limits ad tracking") == true)
            #expect(
                try await Self.as(Self.quiz) { try await Self.denial(client) }?.contains("limits ad tracking") == true)
            // `{"privacy": null}` removes the app's own state: the device's stands for it again.
            #expect(try await Self.as(Self.news) { try await Self.put(client, "/v1/privacy", nil) }.0 == 200)
            #expect(
                try await Self.as(Self.news) { try await client.request(.GET, "/v1/privacy") }.body
                    == Data("{\"privacy\":null}\n".utf8))
        }
    }

    @Test func onlyTheDeviceSaysGPCAndCOPPAAndOnlyThePlatformSetsTheDevicesState() async throws {
        let daemon = try await InProcessDaemon(config: Self.appsConfig())
        try await daemon.run { client in
            let gpc: [String: Any] = ["limit_ad_tracking": false, "gpc": true]
            #expect(
                try await Self.as(Self.news) { try await Self.put(client, "/v1/privacy", gpc) }
                    == (400, "invalid_request"))
            #expect(
                try await Self.as(Self.news) { try await Self.put(client, "/v1/device/privacy", gpc) }
                    == (403, "not_permitted"))
            #expect(try await Self.as(Self.settings) { try await Self.put(client, "/v1/device/privacy", gpc) }.0 == 200)
            let device = try await Self.as(Self.news) { try await client.request(.GET, "/v1/device/privacy") }
            #expect(String(decoding: device.body, as: UTF8.self).contains(#""gpc":true"#), "any app may read it")
            // And they decide, for every app, even one with a state of its own.
            let consent: [String: Any] = ["limit_ad_tracking": false]
            #expect(try await Self.as(Self.news) { try await Self.put(client, "/v1/privacy", consent) }.0 == 200)
            #expect(
                try await Self.as(Self.news) { try await Self.denial(client) }
                    == "consent_missing: GPC: the user sent a Global Privacy Control signal")
            #expect(try await Self.as(Self.quiz) { try await Self.servingMode(client) } == "non_personalized")
            let coppa: [String: Any] = ["limit_ad_tracking": false, "coppa": true]
            #expect(
                try await Self.as(Self.settings) { try await Self.put(client, "/v1/device/privacy", coppa) }.0 == 200)
            #expect(
                try await Self.as(Self.quiz) { try await Self.denial(client) }
                    == "consent_missing: COPPA: the device is directed to children")
            #expect(try await Self.as(Self.news) { try await Self.servingMode(client) } == "non_personalized")
            // An app cannot lift the device's word that the GDPR applies.
            let noGDPR: [String: Any] = ["limit_ad_tracking": false, "gdpr_applies": true]
            #expect(
                try await Self.as(Self.settings) { try await Self.put(client, "/v1/device/privacy", noGDPR) }.0 == 200)
            let lifted: [String: Any] = ["limit_ad_tracking": false, "gdpr_applies": false]
            #expect(try await Self.as(Self.news) { try await Self.put(client, "/v1/privacy", lifted) }.0 == 200)
            #expect(
                try await Self.as(Self.news) { try await Self.denial(client) }
                    == "consent_missing: TCF: the GDPR applies and no TC string is set")
        }
    }
}
