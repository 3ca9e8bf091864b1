import Foundation
import Logging
import SharedTypes
import StateStore
import Synchronization
import TestSupport
import Testing
import Timing

@testable import Mediation

/// Answers 204 to every request and keeps its URL: the notices a tracker queue sent.
final class RecordingFetcher: AdFetcher {
    private let urls = Mutex<[String]>([])

    func send(_ request: AdServerRequest) async throws(AdServerError) -> AdServerResponse {
        urls.withLock { $0.append(request.url) }
        return AdServerResponse(status: 204)
    }

    var sent: [String] { urls.withLock { $0 } }
}

/// A bid whose notices are `http://bidder.invalid/ID/win`, `.../ID/bill` and
/// `.../ID/loss/REASON/MINIMUM` (`-` when not known).
struct URLNotices: BidNotices {
    var id: String

    static func url(_ path: String) -> String { "http://bidder.invalid/" + path }

    func won() -> NoticeURLs { NoticeURLs(wins: [Self.url("\(id)/win")]) }

    func lost(_ reason: AuctionLossReason, minimumToWin: Double?) -> NoticeURLs {
        NoticeURLs(losses: [Self.url("\(id)/loss/\(reason.rawValue)/\(minimumToWin.map { "\($0)" } ?? "-")")])
    }

    var billing: [String] { [Self.url("\(id)/bill")] }
}

/// A real tracker queue over a real SQLite outbox, sending to a `RecordingFetcher`.
struct RecordedTrackers {
    let fetcher = RecordingFetcher()
    let trackers: TrackerQueue

    init() {
        trackers = TrackerQueue(
            fetcher: fetcher, outbox: SQLiteTrackerOutbox(StateDatabase()), clock: WallClock(clock: ContinuousClock()),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        ).started()
    }

    /// What was sent once everything enqueued so far is on disk and delivered, as paths.
    func sent() async throws -> [String] {
        try await trackers.committed()
        await trackers.idle()
        return fetcher.sent.map { String($0.dropFirst(URLNotices.url("").count)) }
    }
}

/// The ledger every bid is settled in: each bid once, whoever asks, through the durable queue.
struct BidLedgerTests {
    @Test func aBidIsSettledOnceAndASecondSettlementDoesNothing() async throws {
        let queue = RecordedTrackers()
        let ledger = BidLedger(trackers: queue.trackers)
        let winner = ledger.open(URLNotices(id: "a"))
        let loser = ledger.open(URLNotices(id: "b"))
        #expect(ledger.unsettled == 2)
        ledger.settle(winner, .won)
        ledger.settle(winner, .won)
        ledger.settle(winner, .lost(.outbid, minimumToWin: 3))
        ledger.settle(loser, .lost(.outbid, minimumToWin: 5))
        ledger.settle(loser, .won)
        ledger.settle(nil, .won)
        #expect(ledger.unsettled == 1, "the winner's billing is owed until its impression")
        ledger.bill(loser)
        ledger.bill(winner)
        ledger.bill(winner)
        ledger.adLeft(winner)
        let sent = try await queue.sent()
        #expect(Set(sent) == ["a/win", "b/loss/102/5.0", "a/bill"])
        #expect(sent.count == 3, "one notice an outcome: \(sent)")
        #expect(ledger.unsettled == 0)
        #expect(try await queue.trackers.backlog().count == 0, "delivered, and gone from the outbox")
        await queue.trackers.drain()
    }

    @Test func concurrentSettlementsOfOneBidSendOneNotice() async throws {
        let queue = RecordedTrackers()
        let ledger = BidLedger(trackers: queue.trackers)
        let bid = ledger.open(URLNotices(id: "raced"))
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask { ledger.settle(bid, index.isMultiple(of: 2) ? .won : .lost(.expired)) }
            }
        }
        let sent = try await queue.sent()
        #expect(sent.count == 1 && ["raced/win", "raced/loss/2/-"].contains(sent.first ?? ""), "\(sent)")
        await queue.trackers.drain()
    }
}
