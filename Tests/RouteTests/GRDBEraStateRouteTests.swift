import Client
import Foundation
import Mediation
import SQLiteNIO
import StateStore
import TestSupport
import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon started on the state directory the last GRDB-era daemon left
/// (`Tests/Fixtures/state/grdb-era/`) serves all it held: the rewards, claimed and not, the
/// privacy states, the owed pings, the capped impressions and the journaled events.
struct GRDBEraStateRouteTests: MediationScenario {
    /// When the fixture's last row was written (wall-clock ms).
    static let written: Int64 = 1_796_175_283_500

    /// A copy of the fixture in `directory/state`, its times moved as if it had been written
    /// just now (the rewards' and caps' windows are counted from the wall clock), nothing else
    /// touched: the file stays as GRDB left it.
    static func state(in directory: TemporaryDirectory) async throws -> String {
        let state = directory.url.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let path = state.appendingPathComponent(StateDatabase.fileName).path
        try FileManager.default.copyItem(
            atPath: repositoryRoot.appendingPathComponent("Tests/Fixtures/state/grdb-era/state.sqlite").path,
            toPath: path)
        let shift = Int64(Date().timeIntervalSince1970 * 1000) - written
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        for (table, columns) in [
            ("tracker_outbox", ["created_at_ms", "due_at_ms"]), ("rewards", ["earned_at_ms", "claimed_at_ms"]),
            ("events", ["at_ms"]), ("capped_impressions", ["at_ms"]), ("privacy", ["set_at_ms"]),
        ] {
            let set = columns.map { "\($0) = \($0) + \(shift)" }.joined(separator: ", ")
            _ = try await connection.query("UPDATE \(table) SET \(set)")
        }
        try await connection.close()
        return state.path
    }

    @Test func theDaemonServesWhatTheGRDBEraDaemonLeft() async throws {
        let scratch = try TemporaryDirectory()
        var config = Self.config(units: [
            Self.native: Self.unit(
                "native", [Self.testItem(Self.native)],
                extra: ["frequency_caps": [["impressions": 100, "per_ms": 86_400_000]]]),
            Self.rewarded: Self.unit("rewarded", [Self.testItem(Self.rewarded)]),
        ])
        config["state_directory"] = try await Self.state(in: scratch)
        // As the fixture's writer was: root, whose app is `uid:0`.
        let daemon = try await InProcessDaemon(config: config, peer: PeerCredentials(pid: getpid(), uid: 0, gid: 0))
        let replayed = daemon.application.state.ads.events.subscribe(EventHub.Filter(), after: 20)
        try await daemon.run { client in
            func json(_ path: String) async throws -> [String: Any] {
                let reply = try await client.request(.GET, path)
                #expect(reply.status == 200, "\(path)")
                return try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
            }
            let users = { (answer: [String: Any]) in
                (answer["rewards"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }
            }
            #expect(users(try await json("/v1/rewards?state=claimed")) == ["player-1"])
            #expect(users(try await json("/v1/rewards?state=unclaimed")) == ["player-2"])
            let device = try await json("/v1/device/privacy")["privacy"] as? [String: Any]
            #expect(device?["gdpr_applies"] as? Bool == true && device?["gpc"] as? Bool == true)
            let own = try await json("/v1/privacy")["privacy"] as? [String: Any]
            #expect(own?["limit_ad_tracking"] as? Bool == true && own?["gpp_sid"] as? [Int] == [7])
            #expect(try await metricValue("secure_signals_tracker_outbox_pings", in: client) == 8)
            let units = try await json("/v1/ad_units")["ad_units"] as? [[String: Any]] ?? []
            let native = units.first { $0["id"] as? String == Self.native }
            #expect((native?["frequency_caps"] as? [[String: Any]])?.first?["shown"] as? Int == 3)
        }
        // The journaled events resume after the one a client saw last.
        var events: [AdEvent] = []
        for await event in replayed {
            events.append(event)
            if events.count == 6 { break }
        }
        #expect(events.map(\.sequence) == Array(21...26))
        #expect(events.map(\.name) == [.willPresent, .impression, .paid, .videoComplete, .rewardEarned, .dismissed])
    }
}
