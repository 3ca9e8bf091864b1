import Synchronization

/// What one bidder's answer is owed, settled once each whoever asks and however often: the
/// winner's notice (win or loss) and the other bids' losses.
final class OwedNotices: Sendable {
    private let settled = Mutex((winner: false, others: false))

    /// True the first time only: the caller sends the winner's notice.
    func settleWinner() -> Bool {
        settled.withLock { state in
            defer { state.winner = true }
            return !state.winner
        }
    }

    /// True the first time only: the caller sends the other bids' losses.
    func settleOthers() -> Bool {
        settled.withLock { state in
            defer { state.others = true }
            return !state.others
        }
    }
}
