import Client
import Foundation
import Hummingbird
import NIOCore
import TestSupport
import Testing

@testable import Daemon

/// Limits a client meets in the routes themselves, in-process: one app's flood of requests
/// cannot hold the daemon from another app (past `max_requests_in_flight_per_peer` its requests
/// get 429, and another uid is answered at once), and loads cannot grow the ad store past
/// `max_stored_ads`.
struct LimitRouteTests: MediationScenario {
    static let flooder = PeerCredentials(pid: 4001, uid: 0, gid: 0)
    static let neighbour = PeerCredentials(pid: 4002, uid: 1000, gid: 1000)

    static var config: [String: Any] {
        demoConfig(
            adapters: [
                // Slow: answers after a minute on the daemon's clock, which the test moves.
                [
                    "name": "slow", "type": "test-echo", "recipients": ["demo"], "timeout_ms": 60_000,
                    "options": ["delay_ms": 60_000],
                ],
                ["name": "fast", "type": "test-echo", "recipients": ["demo"], "timeout_ms": 1000],
            ],
            deadlines: ["request_timeout_ms": 10_000],
            extra: ["limits": ["max_requests_in_flight_per_peer": 4], "access": ["allowed_uids": [1000]]])
    }

    static func signals(_ adapter: String, timeout: Int) -> Data {
        Data(#"{"request_id": "r", "adapters": ["\#(adapter)"], "timeout_ms": \#(timeout)}"#.utf8)
    }

    @Test func aFloodingPeerGets429WhileAnotherIsAnsweredAtOnce() async throws {
        let daemon = try await InProcessDaemon(config: Self.config)
        try await daemon.run { client in
            let requests = daemon.application.limits.requests
            // Four slow requests of the flooder fill its share; the daemon's clock holds them.
            let flood = (0..<4).map { _ in
                Task {
                    try await PeerCredentialScope.$current.withValue(Self.flooder) {
                        try await client.request(.POST, "/v1/signals", json: Self.signals("slow", timeout: 10_000))
                    }
                }
            }
            try await waitUntil { requests.held == 4 }
            let fifth = try await PeerCredentialScope.$current.withValue(Self.flooder) {
                try await client.request(.POST, "/v1/signals", json: Self.signals("slow", timeout: 10_000))
            }
            #expect(fifth.status == 429 && fifth.apiError?.code == "too_many_requests")
            #expect(fifth.headers["retry-after"] == "1")
            let neighbours = try await PeerCredentialScope.$current.withValue(Self.neighbour) {
                try await client.request(.POST, "/v1/signals", json: Self.signals("fast", timeout: 1000))
            }
            #expect(
                neighbours.status == 200, "another uid is answered: \(String(decoding: neighbours.body, as: UTF8.self))"
            )
            #expect(requests.held == 4, "while the flood still waits")
            daemon.application.clock.advance(by: .seconds(10))
            for request in flood { #expect(try await request.value.status == 200) }
            #expect(requests.held == 0, "every share is given back")
            let metrics = String(decoding: try await client.request(.GET, "/metrics").body, as: UTF8.self)
            #expect(
                metrics.contains(#"secure_signals_limit_refusals_total{limit="max_requests_in_flight_per_peer"} 1"#))
        }
    }

    /// Each app a broker hosts has its own share of requests in flight: one hosted app's flood
    /// leaves another's requests, through the same broker, answered at once.
    @Test func eachAppABrokerHostsHasItsOwnShare() async throws {
        var config = Self.config
        config["apps"] = [
            "registered": [
                "tv.example.runtime": ["match": ["uid": 1000], "hosts": ["tv.example.a", "tv.example.b"]],
                "tv.example.a": ["match": ["uid": 2001]],
                "tv.example.b": ["match": ["uid": 2002]],
            ]
        ]
        let daemon = try await InProcessDaemon(config: config, peer: Self.neighbour)
        try await daemon.run { client in
            let requests = daemon.application.limits.requests
            var appA = client
            appA.app = "tv.example.a"
            var appB = client
            appB.app = "tv.example.b"
            let flood = (0..<4).map { _ in
                Task { [appA] in
                    try await appA.request(.POST, "/v1/signals", json: Self.signals("slow", timeout: 10_000))
                }
            }
            try await waitUntil { requests.held == 4 }
            let fifth = try await appA.request(.POST, "/v1/signals", json: Self.signals("slow", timeout: 10_000))
            #expect(fifth.status == 429 && fifth.apiError?.message.contains("this app has 4 requests") == true)
            let other = try await appB.request(.POST, "/v1/signals", json: Self.signals("fast", timeout: 1000))
            #expect(other.status == 200, "another hosted app is answered at once")
            daemon.application.clock.advance(by: .seconds(10))
            for request in flood { #expect(try await request.value.status == 200) }
        }
    }

    @Test func forcedLoadsPastTheCapDropTheOldestUnusedAds() async throws {
        var config = Self.config(units: [Self.native: Self.unit("native", [Self.testItem(Self.native)])])
        config["limits"] = ["max_stored_ads": 5]
        let daemon = try await InProcessDaemon(config: config)
        try await daemon.run { client in
            var ids: [String] = []
            for _ in 0..<12 {
                let (status, json) = try await Self.post(
                    client, "/v1/ads", ["ad_unit": Self.native, "format": "native", "force": true])
                #expect(status == 200)
                ids.append(json["ad_id"] as? String ?? "")
            }
            let oldest = try await client.request(.GET, "/v1/ads/\(ids[0])")
            #expect(oldest.status == 404 && oldest.apiError?.code == "unknown_ad", "the oldest unused ad is gone")
            for id in ids.suffix(5) { #expect(try await client.request(.GET, "/v1/ads/\(id)").status == 200) }
            #expect(try await metricValue("secure_signals_ads_displaced_total", in: client) == 7)
        }
    }

    /// A dismissed ad answers `GET /v1/ads/{id}` for a minute, then is gone, with no load in
    /// between to sweep it.
    @Test func aDismissedAdIsGoneAMinuteLater() async throws {
        let daemon = try await InProcessDaemon(
            config: Self.config(units: [Self.rewarded: Self.unit("rewarded", [Self.testItem(Self.rewarded)])]))
        try await daemon.run { client in
            let (_, json) = try await Self.post(client, "/v1/ads", ["ad_unit": Self.rewarded, "format": "rewarded"])
            let id = try #require(json["ad_id"] as? String)
            #expect(try await Self.post(client, "/v1/ads/\(id)/show").status == 200)
            #expect(try await Self.post(client, "/v1/ads/\(id)/dismiss").status == 200)
            daemon.application.clock.advance(by: .seconds(59))
            #expect(try await client.request(.GET, "/v1/ads/\(id)").status == 200)
            daemon.application.clock.advance(by: .seconds(2))
            let gone = try await client.request(.GET, "/v1/ads/\(id)")
            #expect(gone.status == 404 && gone.apiError?.code == "unknown_ad")
        }
    }

    /// The last unit of a total is kept for root and the daemon's own uid: apps that hold all
    /// they may never lock the operator out.
    @Test func theLastUnitOfATotalIsKeptForRootAndTheDaemonsUid() {
        let quota = PeerQuota<UInt32?>(total: 4, perPeer: 2, privileged: [0, 999])
        #expect(quota.acquire(1000) == nil && quota.acquire(1000) == nil)
        #expect(quota.acquire(1000) == .perPeer(2))
        #expect(quota.acquire(1001) == nil)
        #expect(quota.acquire(1001) == .total(4), "three held: the fourth is kept")
        #expect(quota.acquire(nil) == .total(4), "a peer of unknown uid is not privileged")
        #expect(quota.acquire(999) == nil, "the daemon's uid takes it")
        #expect(quota.acquire(0) == .total(4))
        quota.release(999)
        #expect(quota.acquire(0) == nil, "root takes it")
    }

    /// Per-peer caps that let a few apps hold a whole total are warned about, and the
    /// defaults keep room for eight.
    @Test func perPeerCapsThatLetFewAppsHoldTheTotalAreWarned() {
        #expect(Limits.standard.warnings.isEmpty)
        var limits = Limits.standard
        limits.maxConnectionsPerPeer = 64
        limits.maxEventStreamsPerPeer = 8
        #expect(
            limits.warnings == [
                "limits.max_connections_per_peer (64) lets 4 apps hold all of limits.max_connections (256) and lock "
                    + "the others out; at most 32 keeps room for the rest",
                "limits.max_event_streams_per_peer (8) lets 4 apps hold all of limits.max_event_streams (32) and lock "
                    + "the others out; at most 4 keeps room for the rest",
            ])
    }

    /// A socket that cannot be bound is said in one plain line naming it, not in NIO's words.
    @Test func aBindFailureIsOnePlainLine() {
        let failure = SocketBindFailure(
            listener: DaemonServer<CallbackResponder<DaemonRequestContext>>.Listener.path(
                "/run/x.sock", mode: 0o660, group: nil),
            error: IOError(errnoCode: EACCES, reason: "bind(descriptor:ptr:bytes:)"))
        #expect(failure.description == "socket.path: cannot listen on /run/x.sock: Permission denied")
    }
}
