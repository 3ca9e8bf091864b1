import Client
import Foundation
import TestSupport
import Testing

@testable import Daemon
@testable import StateStore

/// The reward ledger through the routes: a reward committed before its event, listed and
/// claimed once by the peer that showed its ad, invisible to another peer, all of them to root.
struct RewardRouteTests: MediationScenario {
    static let alice = PeerCredentials(pid: getpid(), uid: 1000, gid: 1000)
    static let bob = PeerCredentials(pid: getpid(), uid: 1001, gid: 1001)
    static let root = PeerCredentials(pid: getpid(), uid: 0, gid: 0)

    /// `body`'s requests come from `peer`.
    static func `as`<T>(_ peer: PeerCredentials, _ body: () async throws -> T) async rethrows -> T {
        try await PeerCredentialScope.$current.withValue(peer) { try await body() }
    }

    static func rewards(_ client: DaemonClient, _ query: String = "") async throws -> (UInt, [[String: Any]]) {
        let reply = try await client.request(.GET, "/v1/rewards\(query)")
        let json = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any]
        return (reply.status, json?["rewards"] as? [[String: Any]] ?? [])
    }

    @Test func aRewardIsListedAndClaimedOnceByThePeerThatShowedItsAd() async throws {
        var config = Self.config(units: [Self.rewarded: Self.unit("rewarded", [Self.testItem(Self.rewarded)])])
        config["access"] = ["allowed_uids": [1000, 1001]]
        let daemon = try await InProcessDaemon(config: config)
        try await daemon.run { client in
            let events = daemon.events(adUnit: Self.rewarded)
            let id = try await Self.as(Self.alice) {
                let load = try await Self.post(
                    client, "/v1/ads",
                    [
                        "ad_unit": Self.rewarded, "format": "rewarded",
                        "ssv": ["user_id": "player-9", "custom_data": "lv3"],
                    ])
                let id = try #require(load.json["ad_id"] as? String)
                #expect(try await Self.post(client, "/v1/ads/\(id)/show").status == 200)
                #expect(try await Self.post(client, "/v1/ads/\(id)/progress", ["event": "complete"]).status == 200)
                #expect(try await Self.post(client, "/v1/ads/\(id)/dismiss").status == 200)
                return id
            }
            let seen = try await Self.collect(events, timeout: .seconds(10)) { $0.last?.0 == "dismissed" }
            let event = try #require(seen.first { $0.0 == "reward_earned" }?.1)
            let transaction = try #require(event["transaction_id"] as? String)
            #expect(UUID(uuidString: transaction) != nil && transaction == transaction.lowercased())

            let (status, listed) = try await Self.as(Self.alice) { try await Self.rewards(client) }
            #expect(status == 200 && listed.count == 1)
            let reward = try #require(listed.first)
            #expect(reward["transaction_id"] as? String == transaction && reward["ad_id"] as? String == id)
            #expect(reward["reward_type"] as? String == "coins" && reward["reward_amount"] as? Double == 10)
            #expect(reward["user_id"] as? String == "player-9" && reward["custom_data"] as? String == "lv3")
            #expect(reward["app"] as? String == "uid:1000" && reward["claimed_at_ms"] is NSNull)

            // Another peer neither sees nor claims it.
            #expect(try await Self.as(Self.bob) { try await Self.rewards(client, "?state=all") }.1.isEmpty)
            let stolen = try await Self.as(Self.bob) { try await Self.post(client, "/v1/rewards/\(transaction)/claim") }
            #expect(stolen.status == 404 && Self.errorCode(stolen.json) == "unknown_reward")

            let claimed = try await Self.as(Self.alice) {
                try await Self.post(client, "/v1/rewards/\(transaction)/claim")
            }
            #expect(claimed.status == 200)
            let claimedReward = try #require(claimed.json["reward"] as? [String: Any])
            #expect(claimedReward["claimed_at_ms"] as? Int != nil)
            let again = try await Self.as(Self.alice) {
                try await Self.post(client, "/v1/rewards/\(transaction)/claim")
            }
            #expect(again.status == 409 && Self.errorCode(again.json) == "already_claimed")
            #expect(
                (again.json["reward"] as? [String: Any])?["claimed_at_ms"] as? Int
                    == claimedReward["claimed_at_ms"] as? Int)

            #expect(try await Self.as(Self.alice) { try await Self.rewards(client) }.1.isEmpty)
            #expect(try await Self.as(Self.alice) { try await Self.rewards(client, "?state=claimed") }.1.count == 1)
            // Root sees every peer's.
            #expect(try await Self.as(Self.root) { try await Self.rewards(client, "?state=all") }.1.count == 1)
            let bad = try await client.request(.GET, "/v1/rewards?state=maybe")
            #expect(bad.status == 400 && bad.apiError?.message.contains("state: must be") == true)
        }
    }

    /// A state database that cannot be written (its tables moved away, as a failing disk would
    /// fail them): the calls whose answers would acknowledge something answer 503 instead.
    @Test func whatCannotBeCommittedIsAnswered503NotAcknowledged() async throws {
        let daemon = try await InProcessDaemon(
            config: Self.config(units: [
                Self.rewarded: Self.unit("rewarded", [Self.testItem(Self.rewarded)]),
                Self.native: Self.unit(
                    "native", [Self.testItem(Self.native, ["impression_tracker": "http://127.0.0.1:9/i"])]),
            ]))
        try await daemon.run { client in
            let native = try await Self.post(client, "/v1/ads", ["ad_unit": Self.native, "format": "native"])
            let rewarded = try await Self.post(client, "/v1/ads", ["ad_unit": Self.rewarded, "format": "rewarded"])
            let nativeID = try #require(native.json["ad_id"] as? String)
            let rewardedID = try #require(rewarded.json["ad_id"] as? String)
            #expect(try await Self.post(client, "/v1/ads/\(rewardedID)/show").status == 200)
            let other = try await StateDatabase.open(directory: daemon.directory.url.appendingPathComponent("state"))
            try await other.write { session in
                try await session.execute("ALTER TABLE tracker_outbox RENAME TO away1")
                try await session.execute("ALTER TABLE rewards RENAME TO away2")
            }
            let impression = try await Self.post(client, "/v1/ads/\(nativeID)/impression")
            #expect(impression.status == 503 && Self.errorCode(impression.json) == "state_unavailable")
            let complete = try await Self.post(client, "/v1/ads/\(rewardedID)/progress", ["event": "complete"])
            #expect(complete.status == 503 && Self.errorCode(complete.json) == "state_unavailable")
        }
    }
}
