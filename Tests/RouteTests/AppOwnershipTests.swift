import API
import Client
import Foundation
import SharedTypes
import TestSupport
import Testing

@testable import Daemon

/// Every ad, reward and event is the app's that loaded or earned it: another app gets 404 and
/// none of its events; an app with `inspect` sees all and acts on none.
struct AppOwnershipTests: MediationScenario {
    static let news = PeerCredentials(pid: getpid(), uid: 1001, gid: 1001)
    static let quiz = PeerCredentials(pid: getpid(), uid: 1002, gid: 1002)
    static let inspector = PeerCredentials(pid: getpid(), uid: 1003, gid: 1003)

    static func appsConfig() -> [String: Any] {
        var config = Self.config(units: [Self.rewarded: Self.unit("rewarded", [Self.testItem(Self.rewarded)])])
        config["access"] = ["allowed_uids": [1001, 1002, 1003]]
        config["apps"] = [
            "registered": [
                "tv.example.news": ["match": ["uid": 1001]],
                "tv.example.quiz": ["match": ["uid": 1002]],
                "tv.example.inspector": ["match": ["uid": 1003], "capabilities": ["ads", "inspect"]],
            ]
        ]
        return config
    }

    /// `body`'s requests come from `peer`.
    static func `as`<T>(_ peer: PeerCredentials, _ body: () async throws -> T) async rethrows -> T {
        try await PeerCredentialScope.$current.withValue(peer) { try await body() }
    }

    static func get(_ client: DaemonClient, _ path: String) async throws -> (status: UInt, code: String?) {
        let reply = try await client.request(.GET, path)
        return (reply.status, reply.apiError?.code)
    }

    @Test func anotherAppNeitherSeesNorActsOnAnAppsAdOrItsReward() async throws {
        let daemon = try await InProcessDaemon(config: Self.appsConfig())
        try await daemon.run { client in
            let newsEvents = daemon.events(app: AppIdentity(id: "tv.example.news", capabilities: [.ads]))
            let quizEvents = daemon.events(app: AppIdentity(id: "tv.example.quiz", capabilities: [.ads]))
            let load: [String: Any] = ["ad_unit": Self.rewarded, "format": "rewarded"]
            let id = try #require(
                try await Self.as(Self.news) { try await Self.post(client, "/v1/ads", load) }
                    .json["ad_id"] as? String)

            // The quiz app: no such ad, whatever it tries; its own load gets an ad of its own.
            try await Self.as(Self.quiz) { () async throws in
                #expect(try await Self.get(client, "/v1/ads/\(id)") == (404, "unknown_ad"))
                for action in ["show", "impression", "dismiss"] {
                    let reply = try await Self.post(client, "/v1/ads/\(id)/\(action)")
                    #expect(reply.status == 404 && Self.errorCode(reply.json) == "unknown_ad", "\(action)")
                }
                let own = try await Self.post(client, "/v1/ads", load)
                #expect(own.status == 200 && own.json["ad_id"] as? String != id, "never handed the news app's ad")
            }
            // The inspector sees it, and may not act on it.
            try await Self.as(Self.inspector) { () async throws in
                #expect(try await Self.get(client, "/v1/ads/\(id)").status == 200)
                let shown = try await Self.post(client, "/v1/ads/\(id)/show")
                #expect(shown.status == 403 && Self.errorCode(shown.json) == "not_permitted")
            }
            // Its own app plays it through and earns the reward.
            let played = try await Self.as(Self.news) {
                [
                    try await Self.post(client, "/v1/ads/\(id)/show").status,
                    try await Self.post(client, "/v1/ads/\(id)/progress", ["event": "complete"]).status,
                    try await Self.post(client, "/v1/ads/\(id)/dismiss").status,
                ]
            }
            #expect(played == [200, 200, 200])
            let seen = try await Self.collect(newsEvents, timeout: .seconds(10)) { $0.last?.0 == "dismissed" }
            let earned = try #require(seen.first { $0.0 == "reward_earned" }?.1)
            #expect(seen.allSatisfy { $0.1["app"] as? String == "tv.example.news" })
            let transaction = try #require(earned["transaction_id"] as? String)

            try await Self.as(Self.quiz) {
                let listed = try await client.request(.GET, "/v1/rewards?state=all")
                let rewards = try #require(try JSONSerialization.jsonObject(with: listed.body) as? [String: Any])
                #expect((rewards["rewards"] as? [Any])?.isEmpty == true)
                let claim = try await Self.post(client, "/v1/rewards/\(transaction)/claim")
                #expect(claim.status == 404 && Self.errorCode(claim.json) == "unknown_reward")
            }
            try await Self.as(Self.inspector) {
                let listed = try await client.request(.GET, "/v1/rewards?state=all")
                let rewards = try #require(try JSONSerialization.jsonObject(with: listed.body) as? [String: Any])
                let all = try #require(rewards["rewards"] as? [[String: Any]])
                #expect(all.map { $0["app"] as? String } == ["tv.example.news"])
                let claim = try await Self.post(client, "/v1/rewards/\(transaction)/claim")
                #expect(claim.status == 404, "the inspector sees it, and claims only its own")
            }
            // The quiz app's stream carried its own load only, never the news app's events.
            let quizSeen = try await Self.collect(quizEvents, timeout: .seconds(10)) { $0.count >= 1 }
            #expect(quizSeen.map(\.0) == ["loaded"] && quizSeen[0].1["app"] as? String == "tv.example.quiz")
            // The inspector lists the apps: registered or seen, each one's activity and privacy.
            let listed = try await Self.as(Self.inspector) { try await client.request(.GET, "/v1/apps") }
            let apps = try WireFormat.decoder().decode(AppList.self, from: listed.body).apps
            #expect(apps.map(\.id) == ["tv.example.inspector", "tv.example.news", "tv.example.quiz"])
            #expect(apps.allSatisfy { $0.requestsInFlight + $0.eventStreams <= 1 && $0.privacy == nil })
            #expect(apps.first { $0.id == "tv.example.news" }?.lastSeenAgo != nil)
            #expect(apps.allSatisfy { $0.registered })
            #expect(try await Self.as(Self.news) { try await Self.get(client, "/v1/apps") } == (403, "not_permitted"))
            // Counted by app: registered ids only.
            let metrics = String(decoding: try await client.request(.GET, "/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"secure_signals_app_requests_total{app="tv.example.news"} 5"#), "\(metrics)")
            #expect(metrics.contains(#"secure_signals_app_requests_total{app="tv.example.inspector"}"#))
        }
    }
}
