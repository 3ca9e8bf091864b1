import Client
import Foundation
import TestSupport
import Testing

@testable import Daemon

/// Who may use the routes, with peer credentials the test chooses (the real SO_PEERCRED path
/// is tested through the binary, in DaemonTests).
struct AccessTests {
    static let stranger = PeerCredentials(pid: 4242, uid: 65534, gid: 65534)

    func status(_ path: String, config: [String: Any] = demoConfig(adapters: []), peer: PeerCredentials?) async throws
        -> (UInt, String?)
    {
        let daemon = try await InProcessDaemon(config: config, peer: peer)
        return try await daemon.run { client in
            let reply = try await client.request(.GET, path)
            return (reply.status, reply.apiError?.code)
        }
    }

    @Test func aPeerOutsideThePolicyIsRefusedOnEveryPath() async throws {
        for path in ["/v1/health", "/v1/adapters", "/metrics", "/nowhere"] {
            let (status, code) = try await status(path, peer: Self.stranger)
            #expect(status == 403 && code == "peer_not_allowed", "\(path)")
        }
        let (status, code) = try await status("/v1/health", peer: nil)
        #expect(status == 403 && code == "peer_not_allowed", "credentials that cannot be read refuse the request")
    }

    @Test func theDaemonsOwnUIDRootAndTheAllowlistsGetIn() async throws {
        #expect(try await status("/v1/health", peer: PeerCredentials(pid: 1, uid: 0, gid: 0)).0 == 200)
        let byUID = demoConfig(adapters: [], extra: ["access": ["allowed_uids": [65534]]])
        #expect(try await status("/v1/health", config: byUID, peer: Self.stranger).0 == 200)
        let byGroup = demoConfig(adapters: [], extra: ["access": ["allowed_gids": [5150]]])
        let member = PeerCredentials(pid: 4242, uid: 65534, gid: 65534, groups: [5150])
        #expect(try await status("/v1/health", config: byGroup, peer: member).0 == 200)
        #expect(try await status("/v1/health", config: byGroup, peer: Self.stranger).0 == 403)
    }
}
