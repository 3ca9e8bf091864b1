import Client
import Foundation
import NIOHTTP1
import TestSupport
import Testing

@testable import Daemon

/// Which app a request speaks for, and what that app may do, with peer credentials the test
/// chooses (the real SO_PEERCRED and /proc path is tested through the binary, in AppTests).
struct AppAccessTests {
    static let news = PeerCredentials(pid: 4242, uid: 1001, gid: 1001)
    static let browser = PeerCredentials(pid: 4243, uid: 1002, gid: 1002)
    static let stranger = PeerCredentials(pid: 4244, uid: 1003, gid: 1003)

    static func config(unknown: String = "anonymous") -> [String: Any] {
        demoConfig(
            adapters: [],
            extra: [
                "access": ["allowed_uids": [1001, 1002, 1003]],
                "apps": [
                    "unknown": unknown,
                    "registered": [
                        "tv.example.news": ["match": ["uid": 1001], "capabilities": ["signals"]],
                        "tv.example.browser": [
                            "match": ["uid": 1002], "capabilities": ["signals", "ads"], "hosts": ["tv.example.news"],
                        ],
                    ],
                ],
            ])
    }

    /// The status and error code of `method path` with `body`, as `peer`, naming `app` in the
    /// broker's header when given.
    func answer(
        _ method: String, _ path: String, body: String? = nil, peer: PeerCredentials, app: String? = nil,
        unknown: String = "anonymous"
    ) async throws -> (UInt, String?) {
        let daemon = try await InProcessDaemon(config: Self.config(unknown: unknown), peer: peer)
        return try await daemon.run { client in
            var client = client
            client.app = app
            let reply = try await client.request(HTTPMethod(rawValue: method), path, json: body.map { Data($0.utf8) })
            return (reply.status, reply.apiError?.code)
        }
    }

    @Test func anAppDoesWhatItIsGrantedAndIsToldWhatItIsNot() async throws {
        let signals = #"{"request_id": "r"}"#
        #expect(try await answer("POST", "/v1/signals", body: signals, peer: Self.news).0 == 200)
        let load = #"{"ad_unit": "nowhere", "format": "native"}"#
        #expect(try await answer("POST", "/v1/ads", body: load, peer: Self.news) == (403, "not_permitted"))
        #expect(try await answer("GET", "/v1/health", peer: Self.news).0 == 200, "no capability needed")
        let privacy = #"{"privacy": {"limit_ad_tracking": true}}"#
        #expect(try await answer("PUT", "/v1/privacy", body: privacy, peer: Self.browser).0 == 200, "its own")
        #expect(
            try await answer("PUT", "/v1/device/privacy", body: privacy, peer: Self.browser) == (403, "not_permitted"),
            "the device's privacy is the platform's")
        #expect(
            try await answer("PUT", "/v1/device/privacy", body: privacy, peer: PeerCredentials(pid: 1, uid: 0, gid: 0))
                .0 == 200)
    }

    @Test func anUnknownPeerIsAnAnonymousAppOrRefused() async throws {
        let signals = #"{"request_id": "r"}"#
        #expect(try await answer("POST", "/v1/signals", body: signals, peer: Self.stranger).0 == 200)
        #expect(
            try await answer("GET", "/v1/health", peer: Self.stranger, unknown: "refuse") == (403, "unknown_app"))
        #expect(try await answer("GET", "/v1/health", peer: Self.news, unknown: "refuse").0 == 200)
    }

    @Test func aBrokerSpeaksForTheAppsItHostsAndNoOneElseMay() async throws {
        let load = #"{"ad_unit": "nowhere", "format": "native"}"#
        // As the news app, which may not load ads, though the browser may.
        #expect(
            try await answer("POST", "/v1/ads", body: load, peer: Self.browser, app: "tv.example.news")
                == (403, "not_permitted"))
        #expect(try await answer("POST", "/v1/ads", body: load, peer: Self.browser).1 != "not_permitted")
        #expect(
            try await answer("GET", "/v1/health", peer: Self.news, app: "tv.example.browser")
                == (403, "app_not_hosted"), "the news app hosts no one")
        #expect(
            try await answer("GET", "/v1/health", peer: Self.browser, app: "tv.example.other")
                == (403, "app_not_hosted"))
    }
}
