import Foundation
import Mediation
import SQLiteNIO
import SharedTypes
import TestSupport
import Testing

@testable import StateStore

/// The file the last GRDB-era daemon wrote (`Tests/Fixtures/state/grdb-era/`): opened by this
/// one, it is upgraded in place, once, and keeps every owed ping, reward, event, capped
/// impression and privacy state.
struct GRDBEraFileTests {
    /// A moment just after the fixture was written (its wall-clock ms).
    static let then: Int64 = 1_796_175_290_000

    /// A copy of the fixture in a directory of its own, as the state directory holds it.
    static func copy() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try FileManager.default.copyItem(
            at: repositoryRoot.appendingPathComponent("Tests/Fixtures/state/grdb-era/state.sqlite"),
            to: directory.url.appendingPathComponent(StateDatabase.fileName))
        return directory
    }

    @Test func itIsUpgradedInPlaceOnceAndLosesNothing() async throws {
        let directory = try Self.copy()
        try await StateDatabase.check(path: directory.path(StateDatabase.fileName))
        let database = try await StateDatabase.open(directory: directory.url)
        let (version, tables, journal) = try await database.read { session in
            (
                try await session.value("PRAGMA user_version")?.integer,
                try await session.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                    .map { try $0.text("name") },
                try await session.value("PRAGMA journal_mode")?.string
            )
        }
        // GRDB's record of its eight migrations taken up once, and gone.
        #expect(version == 8)
        #expect(
            tables == [
                "capped_impressions", "events", "meta", "privacy", "rewards", "sqlite_sequence", "tracker_outbox",
            ])
        #expect(journal == "wal")

        // The owed pings: six trackers and two SSV callbacks, each waiting for its retry.
        let outbox = SQLiteTrackerOutbox(database)
        #expect(try await outbox.backlog().count == 8)
        #expect(try await outbox.untriedCount() == 0)
        let due = try await outbox.due(by: .max, limit: 100)
        #expect(due.map(\.id).sorted() == Array(1...8))
        #expect(Dictionary(grouping: due, by: \.kind).mapValues(\.count) == [.impression: 3, .click: 3, .ssv: 2])
        #expect(due.allSatisfy { $0.attempts > 0 && $0.url.hasPrefix("http://127.0.0.1:") })
        #expect(due.filter { $0.kind == .ssv }.allSatisfy { $0.url.contains("/ssv?app=tv&") })

        // The rewards, one claimed and one not, with what they were earned with.
        let ledger = SQLiteRewardLedger(database)
        let claimed = try await ledger.rewards(app: "uid:0", state: .claimed, now: Self.then)
        let unclaimed = try await ledger.rewards(app: "uid:0", state: .unclaimed, now: Self.then)
        #expect(claimed.map(\.userID) == ["player-1"] && unclaimed.map(\.userID) == ["player-2"])
        #expect((claimed + unclaimed).allSatisfy { $0.customData == "a&b=c" && $0.rewardAmount == 10 })
        let claim = try await ledger.claim(try #require(unclaimed.first).transactionID, app: "uid:0", now: Self.then)
        guard case .claimed = claim else { throw DaemonFailure("the unclaimed reward could not be claimed: \(claim)") }

        // The journaled events and their numbering.
        let events = SQLiteEventJournal(database)
        let kept = try await events.recent()
        #expect(kept.map(\.event.sequence) == Array(1...26))
        #expect(kept.filter { $0.event.name == .rewardEarned }.count == 2)
        #expect(kept.allSatisfy { $0.event.app == "uid:0" })
        #expect(try await events.reserved() == 26)

        // The capped impressions, and the privacy states.
        let impressions = try await SQLiteImpressionLog(database).impressions(since: Self.then - 86_400_000)
        #expect(impressions.map(\.adUnit) == Array(repeating: "/21775744923/example/native", count: 3))
        let privacy = try await SQLitePrivacyRecords(database).all()
        #expect(privacy.device == PrivacyState(limitAdTracking: false, gdprApplies: true, gpc: true))
        #expect(privacy.apps == ["uid:0": PrivacyState(limitAdTracking: true, gppSid: [7])])
        #expect(privacy.unreadable.isEmpty)

        // Opened again, nothing is migrated twice and what changed is kept.
        let again = try await StateDatabase.open(directory: directory.url)
        #expect(try await again.session { try await $0.value("PRAGMA user_version")?.integer } == 8)
        #expect(try await SQLiteRewardLedger(again).rewards(app: nil, state: .claimed, now: Self.then).count == 2)
    }
}
